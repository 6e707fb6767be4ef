package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aBurstUpToTheRateThenOneTokenPerInterval() {
    TokenBucket b = new TokenBucket(5, 0);
    for (int i = 0; i < 5; i++) {
      assertThat(b.take(0)).isZero();
    }
    long wait = b.take(0);
    assertThat(wait).isEqualTo(SECOND / 5);
    assertThat(b.take(SECOND / 10)).as("half a token later").isEqualTo(SECOND / 10);
    assertThat(b.take(SECOND / 5)).isZero();
    assertThat(b.take(SECOND / 5)).isPositive();
  }

  @Test
  void anIdleBucketHoldsAtMostOneSecondOfTokens() {
    TokenBucket b = new TokenBucket(3, 0);
    int granted = 0;
    for (int i = 0; i < 10; i++) {
      if (b.take(100 * SECOND) == 0) {
        granted++;
      }
    }
    assertThat(granted).isEqualTo(3);
  }

  @Test
  void theRateHoldsOverALongRun() {
    TokenBucket b = new TokenBucket(100, 0);
    int granted = 0;
    // 10 s of a client trying every millisecond
    for (long t = 0; t < 10 * SECOND; t += SECOND / 1000) {
      if (b.take(t) == 0) {
        granted++;
      }
    }
    assertThat(granted).isBetween(1000, 1101);
  }
}
