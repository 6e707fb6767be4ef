package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BenchEventsTest {
  private static final long HOUR = 3_600_000L;

  /** 10:07:30Z: the current hour began 7.5 minutes ago, 09:00 closed 7.5 minutes ago. */
  private static final long NOW = Instant.parse("2026-03-01T10:07:30Z").toEpochMilli();

  private static final long HOUR_START = Instant.parse("2026-03-01T10:00:00Z").toEpochMilli();

  @Test
  void lateEventsFallInTheHourClosedOverAnHourAgoAndTheRestInTheCurrentHour() {
    SplittableRandom rnd = new SplittableRandom(3);
    int late = 0;
    for (int i = 0; i < 10_000; i++) {
      long ts = BenchEvents.eventTime(rnd, NOW, 30);
      if (ts < HOUR_START) {
        late++;
        assertThat(ts).isBetween(HOUR_START - 2 * HOUR, HOUR_START - HOUR - 1);
      } else {
        assertThat(ts).isBetween(HOUR_START, NOW);
      }
    }
    assertThat(late).isBetween(2_800, 3_200);
  }

  @Test
  void noneAndAllLateAreExact() {
    SplittableRandom rnd = new SplittableRandom(4);
    for (int i = 0; i < 1_000; i++) {
      assertThat(BenchEvents.eventTime(rnd, NOW, 0)).isBetween(HOUR_START, NOW);
      assertThat(BenchEvents.eventTime(rnd, NOW, 100)).isLessThan(HOUR_START - HOUR);
    }
  }

  @Test
  void withoutALateShareEventTimesSpreadOverTheLastHalfHourAcrossTheHourBoundary() {
    SplittableRandom rnd = new SplittableRandom(5);
    boolean before = false;
    for (int i = 0; i < 1_000; i++) {
      long ts = BenchEvents.eventTime(rnd, NOW, -1);
      assertThat(ts).isBetween(NOW - HOUR / 2 + 1, NOW);
      before |= ts < HOUR_START;
    }
    assertThat(before).isTrue();
  }

  @Test
  void aStreamIsInTimeOrderPerDeviceExceptItsLateShare() {
    double rate = 2_000;
    java.util.List<BenchEvents.Spec> events =
        BenchEvents.streaming("d", "s", 20_000, 50, NOW, rate, 5, 11);

    java.util.Map<String, Long> lastOnTime = new java.util.HashMap<>();
    int late = 0;
    for (int i = 0; i < events.size(); i++) {
      BenchEvents.Spec e = events.get(i);
      long due = NOW + Math.round(i * 1000 / rate);
      if (e.ts() == due) {
        Long before = lastOnTime.put(e.deviceId(), e.ts());
        assertThat(before == null || before <= e.ts())
            .as("device %s in order", e.deviceId())
            .isTrue();
      } else {
        late++;
        assertThat(e.ts()).isBetween(due - 2 * HOUR + 1, due - HOUR);
      }
      assertThat(e.eventId()).isEqualTo("s" + i);
    }
    // 5% of 20,000, within about four standard deviations
    assertThat(late).isBetween(880, 1_120);
    assertThat(lastOnTime).hasSize(50);
    assertThat(BenchEvents.streaming("d", "s", 100, 5, NOW, rate, 0, 1))
        .allSatisfy(e -> assertThat(e.ts()).isGreaterThanOrEqualTo(NOW));
  }
}
