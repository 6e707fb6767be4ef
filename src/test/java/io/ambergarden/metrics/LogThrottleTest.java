package io.ambergarden.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final LogThrottle throttle = new LogThrottle(3, Duration.ofSeconds(1), clock::get);

  @Test
  void letsThePermitsThroughThenSuppressesUntilTheWindowEnds() {
    assertThat(throttle.tryAcquire()).isZero();
    assertThat(throttle.tryAcquire()).isZero();
    assertThat(throttle.tryAcquire()).isZero();
    for (int i = 0; i < 1000; i++) {
      assertThat(throttle.tryAcquire()).isEqualTo(LogThrottle.SUPPRESS);
    }
    clock.addAndGet(Duration.ofMillis(999).toNanos());
    assertThat(throttle.tryAcquire()).isEqualTo(LogThrottle.SUPPRESS);
  }

  @Test
  void theFirstLineOfTheNextWindowReportsHowManyWereSkipped() {
    for (int i = 0; i < 10; i++) {
      throttle.tryAcquire();
    }
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(throttle.tryAcquire()).isEqualTo(7);
    assertThat(throttle.tryAcquire()).isZero();
  }

  @Test
  void aFloodOfAMillionLinesLetsThroughOnlyThePermitsOfEachWindow() {
    long logged = 0;
    for (int i = 0; i < 1_000_000; i++) {
      clock.addAndGet(10_000); // 100k lines per second for 10 s
      if (throttle.tryAcquire() != LogThrottle.SUPPRESS) {
        logged++;
      }
    }
    assertThat(logged).isBetween(30L, 33L);
  }

  @Test
  void refusesAThrottleThatCouldNeverLog() {
    assertThatThrownBy(() -> new LogThrottle(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LogThrottle(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
