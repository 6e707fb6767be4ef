package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EventLimitsTest {

  @Test
  void theDefaultsAreTheProductLimits() {
    EventLimits d = EventLimits.defaults();
    assertThat(d)
        .isEqualTo(
            new EventLimits(
                1000,
                128,
                64,
                32,
                64,
                32,
                64,
                256,
                64,
                16384,
                16,
                Duration.ofDays(180).toMillis(),
                Duration.ofMinutes(5).toMillis()));
  }

  @Test
  void nonPositiveLimitsAreRefused() {
    assertThatThrownBy(() -> EventLimits.defaults().withMaxBatch(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBatch");
    assertThatThrownBy(() -> EventLimits.defaults().withRetentionMillis(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retentionMillis");
    assertThatThrownBy(() -> new EventLimits(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxDepth");
    assertThatThrownBy(() -> new EventLimits(1, 1, 1, 1, 1, 1, 1, 1, 1, -1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPayloadBytes");
  }

  @Test
  void zeroPayloadAndZeroSkewAreAllowedAndMeanNone() {
    EventLimits l =
        EventLimits.defaults().withBatchAndTime(10, 0, Duration.ofDays(1), Duration.ZERO);
    assertThat(l.maxBatch()).isEqualTo(10);
    assertThat(l.maxPayloadBytes()).isZero();
    assertThat(l.retentionMillis()).isEqualTo(86_400_000L);
    assertThat(l.futureSkewMillis()).isZero();
    EventParser p = new EventParser(l, Events.CLOCK);
    assertThat(p.parseBatch(Events.utf8(Events.ev("\"payload\":1")), BodyFormat.JSON).errors())
        .extracting(FieldError::field)
        .containsExactly("payload");
    assertThat(
            p.parseBatch(
                    Events.utf8("{\"deviceId\":\"d\",\"ts\":" + (Events.NOW + 1) + "}"),
                    BodyFormat.JSON)
                .errors())
        .extracting(FieldError::message)
        .containsExactly("is too far in the future (more than 0 days ahead of server time)");
  }
}
