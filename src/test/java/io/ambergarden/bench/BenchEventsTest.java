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
}
