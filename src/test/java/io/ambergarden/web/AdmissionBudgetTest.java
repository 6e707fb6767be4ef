package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AdmissionBudgetTest {
  @Test
  void takesWhatFitsAndRefusesWhatDoesNot() {
    AdmissionBudget b = new AdmissionBudget(100);
    assertThat(b.tryAcquire(60)).isTrue();
    assertThat(b.tryAcquire(41)).isFalse();
    assertThat(b.tryAcquire(40)).isTrue();
    assertThat(b.used()).isEqualTo(100);
    b.release(60);
    assertThat(b.tryAcquire(101)).as("larger than the whole budget").isFalse();
    assertThat(b.tryAcquire(60)).isTrue();
  }

  @Test
  void aReservationGrowsWhileItFitsAndIsReleasedOnce() {
    AdmissionBudget b = new AdmissionBudget(100);
    AdmissionBudget.Reservation r = b.reserve(10);
    assertThat(r.growTo(70)).isTrue();
    assertThat(b.used()).isEqualTo(70);
    assertThat(b.reserve(40)).isNull();
    assertThat(r.growTo(110)).isFalse();
    assertThat(r.held()).isEqualTo(70);
    r.shrinkTo(30);
    assertThat(b.used()).isEqualTo(30);
    r.release();
    r.release();
    assertThat(b.used()).isZero();
    assertThat(r.growTo(20)).as("a released reservation stays released").isFalse();
    assertThat(b.used()).isZero();
  }

  @Test
  void concurrentTakersNeverOverdraw() throws Exception {
    // 8 takers of 7 want 56 units at once against 50: the cap is hit all the time
    AdmissionBudget b = new AdmissionBudget(50);
    AtomicInteger held = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      threads.add(
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < 100_000; i++) {
                  if (b.tryAcquire(7)) {
                    peak.accumulateAndGet(held.addAndGet(7), Math::max);
                    Thread.onSpinWait();
                    held.addAndGet(-7);
                    b.release(7);
                  }
                }
              }));
    }
    threads.forEach(Thread::start);
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    // seven takers fit (49), the eighth never does
    assertThat(peak.get()).as("units held at once").isBetween(7, 49);
    assertThat(b.used()).isZero();
    assertThat(b.tryAcquire(50)).as("everything given back").isTrue();
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new AdmissionBudget(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new AdmissionBudget(1).tryAcquire(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
