package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RateLimitsTest {
  private static final long SECOND = 1_000_000_000L;
  private final ExecutorService threads = Executors.newFixedThreadPool(4);

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void eachCallerHasItsOwnBucket() {
    AtomicLong now = new AtomicLong();
    RateLimits limits = new RateLimits(10, now::get);
    assertThat(limits.acquire("a", 1)).isZero();
    assertThat(limits.acquire("a", 1)).isEqualTo(SECOND);
    assertThat(limits.acquire("b", 1)).as("b has its own bucket").isZero();
    now.addAndGet(SECOND);
    assertThat(limits.acquire("a", 1)).isZero();
    assertThat(limits.acquire("a", 2)).as("a new rate starts a full bucket").isZero();
    assertThat(limits.acquire("a", 2)).isZero();
    assertThat(limits.acquire("a", 2)).isEqualTo(SECOND / 2);
  }

  @Test
  void aCallerNeverWaitsWhileAnotherCallersAcquireIsUnderWay() throws Exception {
    // the clock stalls inside the first caller's acquire, as a descheduled event loop would
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    LongSupplier clock =
        () -> {
          if (Thread.currentThread().getName().equals("stalled-caller")) {
            stalled.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return 0;
        };
    RateLimits limits = new RateLimits(100, clock);
    Thread first = new Thread(() -> limits.acquire("a", 5), "stalled-caller");
    first.start();
    try {
      assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
      Future<Long> other = threads.submit(() -> limits.acquire("b", 5));
      assertThat(other.get(5, TimeUnit.SECONDS)).isZero();
    } finally {
      release.countDown();
      first.join(10_000);
    }
  }

  @Test
  void oneBucketSharedByFourThreadsGrantsExactlyItsRate() throws Exception {
    RateLimits limits = new RateLimits(10, () -> 0);
    AtomicInteger granted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      done.add(
          threads.submit(
              () -> {
                start.await();
                for (int i = 0; i < 10_000; i++) {
                  if (limits.acquire("shared", 1000) == 0) {
                    granted.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(granted.get()).as("one second's burst, no tokens granted twice").isEqualTo(1000);
  }

  @Test
  void twoHundredThousandCallersOnFourThreadsKeepTheMapWithinItsBound() throws Exception {
    int max = 1000;
    RateLimits limits = new RateLimits(max, () -> 0);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      done.add(
          threads.submit(
              () -> {
                for (int i = 0; i < 50_000; i++) {
                  assertThat(limits.acquire("caller-" + thread + "-" + i, 1)).isZero();
                }
              }));
    }
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(limits.size()).isLessThanOrEqualTo(max);
  }
}
