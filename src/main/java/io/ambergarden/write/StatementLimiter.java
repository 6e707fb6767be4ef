package io.ambergarden.write;

import com.netflix.concurrency.limits.Limit;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Caps the statements in flight at the driver; the rest wait in FIFO order. The cap comes from a
 * {@link Limit}: fixed, or adapted from each statement's latency (see {@link WriteLimits}). It
 * never falls below {@code floor}, so a shrinking limit slows the writer but never stops it. Used
 * from one event loop only. The queue is bounded by the writer's admission control (events in
 * flight), not here.
 */
public final class StatementLimiter {
  private final Limit limit;
  private final int floor;
  private final LongSupplier nanoClock;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int running;

  /** waiting.size(), published for the metrics scrape, which runs on another thread. */
  private volatile int waitingCount;

  public StatementLimiter(Limit limit, int floor, LongSupplier nanoClock) {
    this.limit = limit;
    this.floor = Math.max(1, floor);
    this.nanoClock = nanoClock;
  }

  public <T> Future<T> submit(Supplier<Future<T>> task) {
    Promise<T> promise = Promise.promise();
    Runnable run =
        () -> {
          int inFlight = ++running;
          long start = nanoClock.getAsLong();
          Future<T> f;
          try {
            f = task.get();
          } catch (RuntimeException e) {
            f = Future.failedFuture(e);
          }
          f.onComplete(
              ar -> {
                running--;
                long rtt = Math.max(1, nanoClock.getAsLong() - start);
                // a failure (timeout, overload) counts as a drop: the adaptive limit backs off
                limit.onSample(start, rtt, inFlight, ar.failed());
                startWaiting();
                promise.handle(ar);
              });
        };
    if (running < cap()) {
      run.run();
    } else {
      waiting.add(run);
      waitingCount = waiting.size();
    }
    return promise.future();
  }

  /** A grown limit may admit several waiting statements at once. */
  private void startWaiting() {
    while (running < cap() && !waiting.isEmpty()) {
      Runnable next = waiting.poll();
      waitingCount = waiting.size();
      next.run();
    }
  }

  /** The statements allowed at the driver now. */
  public int cap() {
    return Math.max(floor, limit.getLimit());
  }

  public int running() {
    return running;
  }

  /** Safe to read from any thread. */
  public int waiting() {
    return waitingCount;
  }
}
