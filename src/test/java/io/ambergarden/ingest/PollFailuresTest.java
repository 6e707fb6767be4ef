package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PollFailuresTest {
  private final PollFailures failures = new PollFailures(100, 5_000, 60_000);

  @Test
  void aPersistentPollFailureBacksOffDoublingUpToTheCap() {
    assertThat(failures.failed(0).delayMillis()).isEqualTo(100);
    assertThat(failures.failed(100).delayMillis()).isEqualTo(200);
    assertThat(failures.failed(300).delayMillis()).isEqualTo(400);
    long delay = 0;
    for (int i = 0; i < 50; i++) {
      delay = failures.failed(1_000 + i).delayMillis();
    }
    assertThat(delay).isEqualTo(5_000);
  }

  @Test
  void theFailureIsLoggedWhenItStartsThenAtMostOncePerIntervalWithTheCountInBetween() {
    assertThat(failures.failed(0).log()).isTrue();
    int logged = 0;
    for (long t = 1_000; t < 60_000; t += 1_000) {
      if (failures.failed(t).log()) {
        logged++;
      }
    }
    assertThat(logged).isZero();
    PollFailures.Next report = failures.failed(60_000);
    assertThat(report.log()).isTrue();
    assertThat(report.suppressed()).isEqualTo(59);
  }

  @Test
  void aSuccessfulPollEndsTheBackoffAndTheNextFailureIsLoggedAtOnce() {
    failures.failed(0);
    failures.failed(100);
    failures.failed(300);
    assertThat(failures.succeeded()).isEqualTo(3);
    assertThat(failures.succeeded()).isZero();
    PollFailures.Next next = failures.failed(500);
    assertThat(next.delayMillis()).isEqualTo(100);
    assertThat(next.log()).isTrue();
  }
}
