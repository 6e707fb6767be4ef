package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SteadyTargetsTest {
  static SteadyCost cost(double cassandra, double service) {
    return new SteadyCost(
        "x",
        1_000,
        10,
        Map.of("Cassandra", cassandra, "service", service, "harness", 9.0),
        cassandra + service,
        9.0,
        0.5);
  }

  static final List<SteadyLoadPhase.Step> STEPS =
      List.of(
          new SteadyLoadPhase.Step(0, 0, null, new LevelLatencies(5, 20, 4, 10, 12, 30, 1, 3)),
          new SteadyLoadPhase.Step(
              25, 1_000, cost(70, 30), new LevelLatencies(6, 38, 5, 12, 15, 45, 2, 45)),
          new SteadyLoadPhase.Step(
              50, 2_000, cost(60, 40), new LevelLatencies(8, 70, 6, 16, 30, 120, 3, 12)),
          new SteadyLoadPhase.Step(
              75, 3_000, cost(65, 45), new LevelLatencies(9, 90, 7, 30, 50, 300, 4, 20)));

  static final JsonArray BASELINE =
      new JsonArray()
          .add(new JsonObject().put("percent", 0))
          .add(
              new JsonObject()
                  .put("percent", 50)
                  .put("eventsPerSecond", 1_500.0)
                  .put(
                      "cost",
                      new JsonObject()
                          .put("systemMillisPer1000", 200.0)
                          .put("millisPer1000", new JsonObject().put("Cassandra", 150.0))));

  @Test
  void everyRowIsComputedFromTheRunsOwnFiguresAndTheBaseline() {
    List<Target> t = SteadyTargets.of(STEPS, BASELINE, 12.5, 0.9);

    assertThat(t).hasSize(11);
    assertThat(t.get(0).value()).isCloseTo(0.5, within(1e-9)); // 100 / 200
    assertThat(t.get(0).met()).isTrue();
    assertThat(t.get(1).value()).isCloseTo(0.4, within(1e-9)); // 60 / 150
    // the baseline's 1,500 events/s lies halfway between this run's 25% and 50% levels
    assertThat(t.get(2).value()).isCloseTo(0.5, within(1e-9)); // (100 + 100) / 2 / 200
    assertThat(t.get(3).value()).isCloseTo(65.0 / 150, within(1e-9)); // (70 + 60) / 2 / 150
    t = t.subList(2, t.size());
    assertThat(t.get(2).value()).isCloseTo(1.9, within(1e-9)); // 38 / 20
    assertThat(t.get(3).value()).isCloseTo(3.5, within(1e-9)); // 70 / 20
    assertThat(t.get(3).met()).isFalse();
    assertThat(t.get(4).value()).isCloseTo(1.6, within(1e-9)); // 16 / 10
    assertThat(t.get(5).value()).isEqualTo(45);
    assertThat(t.get(6).value()).isEqualTo(120);
    assertThat(t.get(6).met()).isFalse();
    assertThat(t.get(7).met()).isFalse(); // 12.5 ms GC pauses
    assertThat(t.get(8).met()).isTrue();
    assertThat(SteadyTargets.json(t).getJsonObject(0).fieldNames())
        .containsExactlyInAnyOrder("name", "value", "goal", "met");
  }

  @Test
  void withoutABaselineTheCostRowsAreNotMet() {
    List<Target> t = SteadyTargets.of(STEPS, null, Double.NaN, Double.NaN);

    assertThat(t.get(0).value()).isNaN();
    assertThat(t.get(0).met()).isFalse();
    assertThat(t.get(1).met()).isFalse();
    assertThat(t.get(2).value()).isNaN();
    assertThat(t.get(3).met()).isFalse();
    t = t.subList(2, t.size());
    assertThat(t.get(7).met()).isFalse();
    assertThat(t.get(8).met()).isFalse();
    assertThat(t.get(2).met()).isTrue(); // the ratios within the run still count
  }

  @Test
  void aRateOutsideTheRunsLevelsIsNotExtrapolated() {
    assertThat(SteadyTargets.atRate(STEPS, 500, s -> s.cost().systemMillisPer1000())).isNaN();
    assertThat(SteadyTargets.atRate(STEPS, 3_500, s -> s.cost().systemMillisPer1000())).isNaN();
    assertThat(SteadyTargets.atRate(STEPS, 3_000, s -> s.cost().systemMillisPer1000()))
        .isEqualTo(110);
    assertThat(SteadyTargets.atRate(STEPS, 2_500, s -> s.cost().systemMillisPer1000()))
        .isCloseTo(105, within(1e-9));
  }
}
