package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RowKeysTest {
  @Test
  void writeTimestampOrdersByEventTimeWhateverTheId() {
    for (String a : new String[] {"", "a", "zzzz", "0"}) {
      for (String b : new String[] {"", "b", "yyyy", "9"}) {
        assertThat(RowKeys.eventTimeWriteTimestamp(1001, a))
            .isGreaterThan(RowKeys.eventTimeWriteTimestamp(1000, b));
      }
    }
    assertThat(RowKeys.eventTimeWriteTimestamp(1000, "x"))
        .isEqualTo(RowKeys.eventTimeWriteTimestamp(1000, "x"));
  }

  @Test
  void saltIsStableAndInRange() {
    for (int i = 0; i < 1000; i++) {
      assertThat(RowKeys.salt("device-" + i, 8)).isBetween(0, 7);
    }
    // String.hashCode is specified by the JLS, so this value is the same on every instance and JVM
    assertThat(RowKeys.salt("M-10086", 8)).isEqualTo(Math.floorMod("M-10086".hashCode(), 8));
  }

  @Test
  void ttlEndsTheRowAtEventTimePlusRetention() {
    long now = 10_000_000L;
    assertThat(RowKeys.ttlSeconds(now, now, Duration.ofDays(1))).isEqualTo(86_400);
    assertThat(RowKeys.ttlSeconds(now - 3_600_000L, now, Duration.ofDays(1))).isEqualTo(82_800);
    assertThat(RowKeys.ttlSeconds(now - 2 * 86_400_000L, now, Duration.ofDays(1))).isEqualTo(1);
  }

  @Test
  void bucketsAreUtcAlignedStarts() {
    TimeBuckets day = new TimeBuckets(Duration.ofDays(1));
    assertThat(day.bucketOf(86_400_000L * 3 + 5)).isEqualTo(86_400_000L * 3);
    assertThat(day.bucketOf(-1)).isEqualTo(-86_400_000L);
    assertThat(day.previous(86_400_000L)).isZero();
    assertThat(TimeBuckets.hourOf(3_600_000L * 7 + 3_599_999L)).isEqualTo(3_600_000L * 7);
    assertThatThrownBy(() -> new TimeBuckets(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
