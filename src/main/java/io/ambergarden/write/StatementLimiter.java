package io.ambergarden.write;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * Caps the statements in flight at the driver; the rest wait in FIFO order. Used from one event
 * loop only. The queue is bounded by the writer's admission control (events in flight), not here.
 */
public final class StatementLimiter {
  private final int maxConcurrent;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int running;

  public StatementLimiter(int maxConcurrent) {
    this.maxConcurrent = maxConcurrent;
  }

  public <T> Future<T> submit(Supplier<Future<T>> task) {
    Promise<T> promise = Promise.promise();
    Runnable run =
        () -> {
          running++;
          Future<T> f;
          try {
            f = task.get();
          } catch (RuntimeException e) {
            f = Future.failedFuture(e);
          }
          f.onComplete(
              ar -> {
                running--;
                Runnable next = waiting.poll();
                if (next != null) {
                  next.run();
                }
                promise.handle(ar);
              });
        };
    if (running < maxConcurrent) {
      run.run();
    } else {
      waiting.add(run);
    }
    return promise.future();
  }

  public int running() {
    return running;
  }

  public int waiting() {
    return waiting.size();
  }
}
