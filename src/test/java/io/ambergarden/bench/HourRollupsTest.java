package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HourRollupsTest {
  /** rollup.grace 2m plus rollup.mark-safety 20s, the defaults. */
  static final Duration AFTER_HOUR_END = Duration.ofSeconds(140);

  static Instant at(String time) {
    return Instant.parse("2026-12-07T" + time + "Z");
  }

  @Test
  void aWindowEndingBeforeTheNextRollupStartsIsClear() {
    assertThat(HourRollups.overlapping(at("10:00:00"), Duration.ofMinutes(2), AFTER_HOUR_END))
        .isEmpty();
  }

  @Test
  void aWindowReachingTheNextRollupWaitsForIt() {
    assertThat(HourRollups.overlapping(at("10:00:00"), Duration.ofMinutes(3), AFTER_HOUR_END))
        .contains(at("10:02:20"));
    assertThat(HourRollups.overlapping(at("10:02:19"), Duration.ofSeconds(2), AFTER_HOUR_END))
        .contains(at("10:02:20"));
  }

  @Test
  void aRollupThatStartedLessThanItsLongestRunAgoMayStillBeRunning() {
    assertThat(HourRollups.overlapping(at("10:02:20"), Duration.ofSeconds(1), AFTER_HOUR_END))
        .contains(at("10:02:20"));
    assertThat(HourRollups.overlapping(at("10:06:19"), Duration.ofSeconds(1), AFTER_HOUR_END))
        .contains(at("10:02:20"));
  }

  @Test
  void aRollupOverItsLongestRunIsOver() {
    assertThat(HourRollups.overlapping(at("10:06:21"), Duration.ofMinutes(5), AFTER_HOUR_END))
        .isEmpty();
  }

  @Test
  void aSoakLongerThanTheGapToTheNextRollupWaitsForIt() {
    assertThat(HourRollups.overlapping(at("10:45:00"), Duration.ofMinutes(21), AFTER_HOUR_END))
        .contains(at("11:02:20"));
  }

  @Test
  void measuredPhasesHoldingARollupAreFlaggedAndOtherPhasesAreNot() {
    List<CpuLedger.Phase> phases =
        List.of(
            phase("(b) service Kafka -> Cassandra, full rate", 2_000),
            phase("steady 50%, no reads", HourRollups.TOLERATED),
            phase("steady 25%, until quiet", HourRollups.TOLERATED + 1),
            phase("steady 75%, settle before", 1_500),
            phase("hour rollup, kept out of steady 50%", 2_000),
            phase("soak at half rate (+ reads)", 300),
            phase("(e) reads with no ingest", 0));

    assertThat(HourRollups.leaks(phases))
        .hasSize(3)
        .anySatisfy(l -> assertThat(l).contains("(b) service").contains("2000"))
        .anySatisfy(l -> assertThat(l).contains("steady 25%, until quiet"))
        .anySatisfy(l -> assertThat(l).contains("soak"));
  }

  static CpuLedger.Phase phase(String name, long recomputes) {
    return new CpuLedger.Phase(
        name, 1_000, 60, Map.of("service", 1.0), Map.of(HourRollups.COUNTER, recomputes));
  }
}
