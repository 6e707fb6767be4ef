package io.ambergarden.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.netflix.concurrency.limits.limit.FixedLimit;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StatementLimiterTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void aFixedLimitRunsThatManyAndStartsTheRestInOrder() {
    StatementLimiter limiter = new StatementLimiter(FixedLimit.of(2), 1, System::nanoTime);
    List<Promise<Integer>> sent = new ArrayList<>();
    List<Future<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      results.add(
          limiter.submit(
              () -> {
                Promise<Integer> p = Promise.promise();
                sent.add(p);
                return p.future();
              }));
    }
    assertEquals(2, limiter.running());
    assertEquals(3, limiter.waiting());
    sent.get(1).complete(1);
    assertEquals(3, sent.size(), "a finished statement starts the next waiting one");
    sent.get(0).fail(new IllegalStateException("timeout"));
    sent.get(2).complete(2);
    assertEquals(5, sent.size());
    assertEquals(2, limiter.running());
    assertEquals(0, limiter.waiting());
    assertTrue(results.get(0).failed());
    assertEquals(2, results.get(2).result());
  }

  @Test
  void aThrowingTaskFailsItsFutureAndFreesItsSlot() {
    StatementLimiter limiter = new StatementLimiter(FixedLimit.of(1), 1, System::nanoTime);
    Future<Object> f =
        limiter.submit(
            () -> {
              throw new IllegalArgumentException("bad bind");
            });
    assertTrue(f.failed());
    assertEquals(0, limiter.running());
  }

  @Test
  void vegasShrinksTheLimitWhenTheStoreQueuesAndKeepsItsThroughput() {
    Run fixed = new Run(null, 8);
    fixed.limiter = new StatementLimiter(FixedLimit.of(64), 4, fixed::now);
    fixed.simulate(10_000);
    Run vegas = new Run(null, 8);
    vegas.limiter = new StatementLimiter(WriteLimits.vegas(4, 64), 4, vegas::now);
    vegas.simulate(10_000);

    // a store that serves 8 statements at once, 1 ms each: 64 in flight only queue there
    assertEquals(64, fixed.limiter.cap());
    assertTrue(fixed.meanRttMillis() > 7, "fixed: " + fixed.meanRttMillis());
    int cap = vegas.limiter.cap();
    assertTrue(cap >= 4 && cap <= 24, "vegas limit " + cap);
    assertTrue(vegas.meanRttMillis() < 3.5, "vegas rtt " + vegas.meanRttMillis());
    assertTrue(
        vegas.completedInLastSecond >= 0.9 * fixed.completedInLastSecond,
        vegas.completedInLastSecond + " vs " + fixed.completedInLastSecond);
  }

  @Test
  void vegasGrowsTheLimitWhileLatencyStaysFlat() {
    Run run = new Run(null, 1_000);
    run.limiter = new StatementLimiter(WriteLimits.vegas(4, 64), 4, run::now);
    run.simulate(10_000);
    assertEquals(64, run.limiter.cap());
  }

  @Test
  void failuresShrinkTheLimitButNeverBelowTheFloor() {
    Run run = new Run(null, 8);
    run.failAll = true;
    run.limiter = new StatementLimiter(WriteLimits.vegas(4, 64), 4, run::now);
    run.simulate(10_000);
    assertEquals(4, run.limiter.cap());
    assertEquals(4, run.maxRunningInLastSecond);
  }

  /**
   * A discrete-event model of a store with {@code slots} parallel servers, 1 ms per statement, fed
   * with more statements than the limiter lets through.
   */
  private static final class Run {
    StatementLimiter limiter;
    final long[] slotFreeAt;
    final PriorityQueue<long[]> inFlight = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    final List<Promise<Void>> promises = new ArrayList<>();
    long clock;
    boolean failAll;
    int maxRunningInLastSecond;
    long measureFrom = Long.MAX_VALUE;
    long rttSum;
    long rttCount;
    int completedInLastSecond;

    Run(StatementLimiter limiter, int slots) {
      this.limiter = limiter;
      this.slotFreeAt = new long[slots];
    }

    long now() {
      return clock;
    }

    void simulate(long millis) {
      long end = millis * MS;
      measureFrom = end - 1_000 * MS;
      topUp();
      while (!inFlight.isEmpty() && clock < end) {
        long[] next = inFlight.poll();
        clock = next[0];
        if (clock > measureFrom) {
          rttSum += next[0] - next[1];
          rttCount++;
          completedInLastSecond++;
        }
        Promise<Void> p = promises.get((int) next[2]);
        if (failAll) {
          p.fail("timeout");
        } else {
          p.complete();
        }
        topUp();
      }
    }

    double meanRttMillis() {
      return (double) rttSum / rttCount / MS;
    }

    private void topUp() {
      while (limiter.waiting() < 4) {
        limiter.submit(this::send);
      }
    }

    private Future<Void> send() {
      if (clock > measureFrom) {
        maxRunningInLastSecond = Math.max(maxRunningInLastSecond, limiter.running());
      }
      int slot = 0;
      for (int i = 1; i < slotFreeAt.length; i++) {
        if (slotFreeAt[i] < slotFreeAt[slot]) {
          slot = i;
        }
      }
      long done = Math.max(clock, slotFreeAt[slot]) + MS;
      slotFreeAt[slot] = done;
      Promise<Void> p = Promise.promise();
      promises.add(p);
      inFlight.add(new long[] {done, clock, promises.size() - 1});
      return p.future();
    }
  }
}
