package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SteadyCostTest {
  // idle: Cassandra burns 0.1 core and the service 0.02 with nothing to do
  static final CpuLedger.Phase IDLE =
      new CpuLedger.Phase(
          "idle", 0, 60.0, Map.of("Cassandra", 6.0, "service", 1.2, "harness", 0.6));

  @Test
  void theIdleFloorIsSubtractedAndTheHarnessKeptApart() {
    CpuLedger.Phase load =
        new CpuLedger.Phase(
            "50%", 100_000, 20.0, Map.of("Cassandra", 12.0, "service", 4.4, "harness", 1.0));

    SteadyCost cost = SteadyCost.of(load, null, IDLE, "harness", 2);

    // Cassandra: (12 - 0.1 * 20) s over 100,000 events = 100 ms per 1000
    assertThat(cost.millisPer1000().get("Cassandra")).isCloseTo(100.0, within(1e-9));
    // service: (4.4 - 0.02 * 20) = 4 s -> 40 ms per 1000
    assertThat(cost.millisPer1000().get("service")).isCloseTo(40.0, within(1e-9));
    assertThat(cost.systemMillisPer1000()).isCloseTo(140.0, within(1e-9));
    // the harness is gross and never in the system figure
    assertThat(cost.harnessMillisPer1000()).isCloseTo(10.0, within(1e-9));
    // 17.4 CPU-seconds over 20 s of 2 cores
    assertThat(cost.utilisation()).isCloseTo(0.435, within(1e-9));
  }

  @Test
  void theTailAfterTheWindowIsBookedToItLessItsOwnFloor() {
    CpuLedger.Phase load =
        new CpuLedger.Phase("25%", 50_000, 20.0, Map.of("Cassandra", 7.0, "harness", 0.5));
    // 30 s after the window until quiet: 4.5 s of Cassandra, 3 s of it above the floor
    CpuLedger.Phase tail =
        new CpuLedger.Phase("tail", 0, 30.0, Map.of("Cassandra", 6.0, "harness", 0.3));

    SteadyCost cost = SteadyCost.of(load, tail, IDLE, "harness", 2);

    // (7 - 2) + (6 - 3) = 8 s over 50,000 events
    assertThat(cost.millisPer1000().get("Cassandra")).isCloseTo(160.0, within(1e-9));
    assertThat(cost.systemMillisPer1000()).isCloseTo(160.0, within(1e-9));
    // the harness's tail is not booked: it only waited
    assertThat(cost.harnessMillisPer1000()).isCloseTo(10.0, within(1e-9));
  }

  @Test
  void aProcessUnknownInAnyWindowIsNaNAndSoIsTheSystemFigure() {
    CpuLedger.Phase load =
        new CpuLedger.Phase("p", 1_000, 10.0, Map.of("Cassandra", 5.0, "Kafka", Double.NaN));
    CpuLedger.Phase idle = new CpuLedger.Phase("idle", 0, 10.0, Map.of("Cassandra", 0.5));

    SteadyCost cost = SteadyCost.of(load, null, idle, "harness", 2);

    assertThat(cost.millisPer1000().get("Cassandra")).isCloseTo(4_500.0, within(1e-9));
    assertThat(cost.millisPer1000().get("Kafka")).isNaN();
    assertThat(cost.systemMillisPer1000()).isNaN();
    assertThat(cost.harnessMillisPer1000()).isNaN();
  }

  @Test
  void aWindowWithoutEventsHasNoCost() {
    assertThatThrownBy(() -> SteadyCost.of(IDLE, null, IDLE, "harness", 2))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
