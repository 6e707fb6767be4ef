package io.ambergarden.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClockMetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ClockMeters meters = new ClockMeters(registry);

  private double offset(String node) {
    return registry.get("amber.clock.offset.seconds").tag("node", node).gauge().value();
  }

  @Test
  void aMeasuredNodeShowsItsOffsetAndUncertaintyAndTheSkewIsExportedBeforeAnyCheck() {
    assertThat(registry.get("amber.clock.skew.seconds").gauge().value()).isZero();
    assertThat(meters.track("10.0.0.1:9042")).isTrue();
    assertThat(offset("10.0.0.1:9042")).isNaN();
    meters.measured("10.0.0.1:9042", new ClockOffsets.Offset(-1.5, 0.01));
    meters.skew(1.49);
    assertThat(offset("10.0.0.1:9042")).isEqualTo(-1.5);
    assertThat(
            registry
                .get("amber.clock.offset.uncertainty.seconds")
                .tag("node", "10.0.0.1:9042")
                .gauge()
                .value())
        .isEqualTo(0.01);
    assertThat(registry.get("amber.clock.skew.seconds").gauge().value()).isEqualTo(1.49);
  }

  @Test
  void aFailedCheckIsCountedAndLeavesTheOffsetUnknown() {
    meters.track("a:9042");
    meters.measured("a:9042", new ClockOffsets.Offset(0.1, 0.01));
    meters.failed("a:9042");
    meters.failed("a:9042");
    assertThat(offset("a:9042")).isNaN();
    assertThat(registry.get("amber.clock.checks.failed").tag("node", "a:9042").counter().count())
        .isEqualTo(2);
  }

  @Test
  void nodesBeyondTheCapAreNotTrackedAndANodeThatLeftTakesItsMetersAlong() {
    for (int i = 0; i < ClockMeters.MAX_NODES; i++) {
      assertThat(meters.track("n" + i + ":9042")).isTrue();
    }
    assertThat(meters.track("extra:9042")).isFalse();
    meters.measured("extra:9042", new ClockOffsets.Offset(5, 0.01));
    meters.failed("extra:9042");
    assertThat(registry.find("amber.clock.offset.seconds").tag("node", "extra:9042").gauge())
        .isNull();
    assertThat(registry.find("amber.clock.offset.seconds").gauges()).hasSize(ClockMeters.MAX_NODES);
    meters.retain(Set.of("n0:9042"));
    assertThat(registry.find("amber.clock.offset.seconds").gauges()).hasSize(1);
    assertThat(registry.find("amber.clock.checks.failed").counters()).hasSize(1);
    assertThat(meters.track("extra:9042")).isTrue();
  }

  @Test
  void closingRemovesEveryMeterSoARedeployedCheckRegistersItsOwn() {
    meters.track("a:9042");
    meters.close();
    assertThat(registry.getMeters()).isEmpty();
    ClockMeters again = new ClockMeters(registry);
    again.skew(2.0);
    assertThat(registry.get("amber.clock.skew.seconds").gauge().value()).isEqualTo(2.0);
  }
}
