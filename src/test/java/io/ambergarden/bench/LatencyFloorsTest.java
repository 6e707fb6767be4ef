package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyFloorsTest {
  @Test
  void aFloorIsTheNoStorageP99AtTheLoadOverTheReadsOwnP99AtZero() {
    // SteadyTargetsTest's levels: page p99 at 0% 20 ms, latest 10 ms; no storage at 25% 45 ms,
    // at 50% 12 ms
    List<LatencyFloors.Floor> f = LatencyFloors.of(SteadyTargetsTest.STEPS);

    assertThat(f)
        .extracting(LatencyFloors.Floor::target)
        .containsExactly(
            "page p99 at 25% against 0%",
            "page p99 at 50% against 0%", "latest p99 at 50% against 0%");
    assertThat(f.get(0).floor()).isCloseTo(2.25, within(1e-9)); // 45 / 20
    assertThat(f.get(0).unreachable()).isTrue(); // above the goal of 2
    assertThat(f.get(1).floor()).isCloseTo(0.6, within(1e-9)); // 12 / 20
    assertThat(f.get(1).unreachable()).isFalse();
    assertThat(f.get(2).floor()).isCloseTo(1.2, within(1e-9)); // 12 / 10
    assertThat(f.get(2).unreachable()).isFalse(); // 1.2 is within 1.5: storage decides
  }

  @Test
  void aRunWithoutTheNoStorageRequestShowsNothingUnreachable() {
    List<SteadyLoadPhase.Step> steps =
        List.of(
            new SteadyLoadPhase.Step(0, 0, null, latencies(20, Double.NaN)),
            new SteadyLoadPhase.Step(25, 1_000, null, latencies(30, Double.NaN)),
            new SteadyLoadPhase.Step(50, 2_000, null, latencies(40, Double.NaN)));

    List<LatencyFloors.Floor> f = LatencyFloors.of(steps);

    assertThat(f).noneMatch(LatencyFloors.Floor::unreachable);
    JsonObject row = LatencyFloors.json(f).getJsonObject(2);
    assertThat(row.getValue("floor")).isNull();
    assertThat(row.getDouble("goal")).isEqualTo(1.5);
    assertThat(row.getBoolean("unreachable")).isFalse();
  }

  @Test
  void aRunWithoutAnIdleLevelHasNoFloors() {
    List<LatencyFloors.Floor> f =
        LatencyFloors.of(List.of(new SteadyLoadPhase.Step(50, 2_000, null, latencies(40, 99))));

    assertThat(f).allMatch(x -> Double.isNaN(x.floor()) && !x.unreachable());
  }

  private static LevelLatencies latencies(double p99, double noStorageP99) {
    return new LevelLatencies(1, p99, 1, p99, 5, 50, 1, noStorageP99);
  }
}
