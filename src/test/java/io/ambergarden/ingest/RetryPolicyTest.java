package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.ingest.ErrorClassifier.Kind;
import io.ambergarden.ingest.RetryPolicy.Action;
import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  private static final long TIMEOUT = 60_000;
  private final RetryPolicy policy = new RetryPolicy(TIMEOUT, 5_000);

  @Test
  void aPermanentFailureOfABatchIsNarrowedToSingleRecords() {
    assertThat(policy.decide(Kind.PERMANENT, 50, 1, 1_000, 0, 1_000).action())
        .isEqualTo(Action.SPLIT);
  }

  @Test
  void aPermanentFailureOfOneRecordRejectsItAtOnce() {
    assertThat(policy.decide(Kind.PERMANENT, 1, 1, 1_000, 0, 1_000).action())
        .isEqualTo(Action.REJECT);
  }

  @Test
  void aTransientFailureIsRetriedWithDoublingCappedBackoff() {
    RetryPolicy lowest = new RetryPolicy(TIMEOUT, 5_000, fixed(false));
    RetryPolicy highest = new RetryPolicy(TIMEOUT, 5_000, fixed(true));
    RetryPolicy.Decision first = highest.decide(Kind.TRANSIENT, 10, 1, 1_000, 0, 1_000);
    assertThat(first.action()).isEqualTo(Action.RETRY);
    assertThat(first.delayMillis()).isEqualTo(100);
    assertThat(lowest.decide(Kind.TRANSIENT, 10, 1, 1_000, 0, 1_000).delayMillis()).isEqualTo(50);
    assertThat(highest.decide(Kind.TRANSIENT, 10, 2, 1_000, 0, 1_200).delayMillis()).isEqualTo(200);
    assertThat(lowest.decide(Kind.TRANSIENT, 10, 2, 1_000, 0, 1_200).delayMillis()).isEqualTo(100);
    assertThat(highest.decide(Kind.TRANSIENT, 10, 40, 1_000, 0, 2_000).delayMillis())
        .isEqualTo(5_000);
    assertThat(lowest.decide(Kind.TRANSIENT, 10, 40, 1_000, 0, 2_000).delayMillis())
        .isEqualTo(2_500);
  }

  @Test
  void retriesOfTheSameAttemptAreSpreadByJitterBetweenHalfAndAllOfTheBackoff() {
    Set<Long> delays = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      delays.add(policy.backoff(4));
    }
    assertThat(delays).allSatisfy(d -> assertThat(d).isBetween(400L, 800L));
    assertThat(delays).hasSizeGreaterThan(100);
  }

  @Test
  void aBatchFailingTransientlyPastTheTimeoutIsSplitEvenWhenNoOtherWriteSucceeded() {
    long first = 1_000;
    assertThat(policy.decide(Kind.TRANSIENT, 11, 30, first, 0, first + TIMEOUT).action())
        .isEqualTo(Action.SPLIT);
    assertThat(policy.decide(Kind.TRANSIENT, 11, 30, first, 0, first + TIMEOUT - 1).action())
        .isEqualTo(Action.RETRY);
  }

  /** A random source that always draws the lowest or the highest value of a bounded range. */
  private static RandomGenerator fixed(boolean highest) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public long nextLong(long bound) {
        return highest ? bound - 1 : 0;
      }
    };
  }

  @Test
  void aTransientFailurePastTheTimeoutIsGivenUpWhileOtherWritesSucceed() {
    long first = 1_000;
    long now = first + TIMEOUT;
    long otherWriteSucceeded = first + 10;
    assertThat(policy.decide(Kind.TRANSIENT, 10, 30, first, otherWriteSucceeded, now).action())
        .isEqualTo(Action.SPLIT);
    assertThat(policy.decide(Kind.TRANSIENT, 1, 30, first, otherWriteSucceeded, now).action())
        .isEqualTo(Action.REJECT);
  }

  @Test
  void duringAnOutageNothingIsGivenUpHoweverLong() {
    long first = 1_000;
    long lastSuccessBeforeTheOutage = 900;
    assertThat(
            policy
                .decide(
                    Kind.TRANSIENT, 1, 500, first, lastSuccessBeforeTheOutage, first + 10 * TIMEOUT)
                .action())
        .isEqualTo(Action.RETRY);
  }

  @Test
  void busyIsNeverGivenUp() {
    assertThat(policy.decide(Kind.BUSY, 1, 500, 1_000, 50_000, 10 * TIMEOUT).action())
        .isEqualTo(Action.RETRY);
  }

  @Test
  void aZeroTimeoutGivesUpOnTheFirstTransientFailureAfterProgress() {
    RetryPolicy none = new RetryPolicy(0, 5_000);
    assertThat(none.decide(Kind.TRANSIENT, 1, 1, 1_000, 999, 1_000).action())
        .isEqualTo(Action.RETRY);
    assertThat(none.decide(Kind.TRANSIENT, 1, 1, 1_000, 1_001, 1_002).action())
        .isEqualTo(Action.REJECT);
  }
}
