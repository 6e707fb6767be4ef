package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StallCheckTest {
  private static final long TIMEOUT = 60_000;

  @Test
  void aConsumerWithLagAndNothingInFlightIsStalledOnceNothingFinishedForTheTimeout() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(11);
    assertThat(check.stalled(TIMEOUT, 0)).isFalse();
    assertThat(check.stalled(TIMEOUT + 1, 0)).isTrue();
  }

  @Test
  void recordsInFlightWithNoneFinishingAreAStall() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    assertThat(check.stalled(TIMEOUT + 1, 5)).isTrue();
  }

  @Test
  void aFinishedRecordRestartsTheClock() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(100);
    check.progressed(50_000);
    assertThat(check.stalled(TIMEOUT + 1, 3)).isFalse();
    assertThat(check.stalled(50_000 + TIMEOUT + 1, 3)).isTrue();
  }

  @Test
  void aConsumerWithNothingToDoIsNeverStalled() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(0);
    assertThat(check.stalled(10 * TIMEOUT, 0)).isFalse();
    // work arriving after a long idle time gets the whole timeout
    check.lag(3);
    assertThat(check.stalled(11 * TIMEOUT, 0)).isFalse();
  }

  @Test
  void theStallEndsWhenTheLagIsWorkedOff() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(7);
    assertThat(check.stalled(2 * TIMEOUT, 0)).isTrue();
    check.progressed(2 * TIMEOUT + 10);
    check.lag(0);
    assertThat(check.stalled(2 * TIMEOUT + 20, 0)).isFalse();
  }

  @Test
  void aStallIsStuckOnlyWhenTheStoreAnsweredForAWholeTimeout() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(50);
    check.storeDown(10_000);
    // stalled while the store was down: waiting for it, not stuck
    assertThat(check.stalled(TIMEOUT + 1, 0)).isTrue();
    assertThat(check.stuck(TIMEOUT + 1, 0)).isFalse();
    // the store is back, the consumer has a whole timeout to catch up before it counts as stuck
    assertThat(check.stuck(10_000 + TIMEOUT, 0)).isFalse();
    assertThat(check.stuck(10_000 + TIMEOUT + 1, 0)).isTrue();
  }

  @Test
  void aStallWithTheStoreNeverDownIsStuck() {
    StallCheck check = new StallCheck(TIMEOUT, 0);
    check.lag(1);
    assertThat(check.stuck(TIMEOUT + 1, 0)).isTrue();
  }
}
