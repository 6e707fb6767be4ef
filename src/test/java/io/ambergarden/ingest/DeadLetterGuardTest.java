package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeadLetterGuardTest {

  @Test
  void itDoesNotTripBeforeTheMinimumSample() {
    DeadLetterGuard g = new DeadLetterGuard(10, 5, 0.5);
    for (int i = 0; i < 4; i++) {
      assertThat(g.record(true)).isFalse();
    }
    assertThat(g.record(true)).isTrue();
  }

  @Test
  void anOccasionalPoisonRecordNeverTripsIt() {
    DeadLetterGuard g = new DeadLetterGuard(100, 20, 0.2);
    for (int i = 0; i < 10_000; i++) {
      assertThat(g.record(i % 10 == 0)).isFalse();
    }
  }

  @Test
  void oldOutcomesLeaveTheWindow() {
    DeadLetterGuard g = new DeadLetterGuard(4, 4, 0.5);
    g.record(true);
    g.record(true);
    g.record(false);
    g.record(false);
    assertThat(g.ratio()).isEqualTo(0.5);
    g.record(false);
    assertThat(g.ratio()).isEqualTo(0.25);
    assertThat(g.tripped()).isFalse();
  }

  @Test
  void onceTrippedItStaysTripped() {
    DeadLetterGuard g = new DeadLetterGuard(2, 1, 0.4);
    assertThat(g.record(true)).isTrue();
    assertThat(g.record(false)).isTrue();
    assertThat(g.tripped()).isTrue();
  }

  @Test
  void oneOversizedPoisonRecordAmongHealthyTrafficNeverTripsTheDefaultGuard() {
    DeadLetterGuard g = new DeadLetterGuard(200, 50, 0.5);
    assertThat(g.record(true)).isFalse();
    for (int i = 0; i < 1000; i++) {
      assertThat(g.record(false)).isFalse();
    }
  }
}
