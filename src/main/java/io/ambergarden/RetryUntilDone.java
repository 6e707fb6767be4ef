package io.ambergarden;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a start-up step until it succeeds: after a failure, {@code undo} cleans up what the attempt
 * left, then the step runs again after a pause that doubles up to 30 s, with jitter so restarted
 * pods do not retry in step. Stops trying once {@code stopped} says so.
 */
final class RetryUntilDone {
  private static final Logger LOG = LoggerFactory.getLogger(RetryUntilDone.class);
  private static final long MAX_PAUSE_MILLIS = 30_000;

  private RetryUntilDone() {}

  static void run(
      Vertx vertx,
      String what,
      Supplier<Future<?>> attempt,
      Supplier<Future<?>> undo,
      BooleanSupplier stopped) {
    run(vertx, what, attempt, undo, stopped, 1000);
  }

  /** As above, the first pause between {@code pauseMillis} and twice that. */
  static void run(
      Vertx vertx,
      String what,
      Supplier<Future<?>> attempt,
      Supplier<Future<?>> undo,
      BooleanSupplier stopped,
      long pauseMillis) {
    if (stopped.getAsBoolean()) {
      return;
    }
    attempt
        .get()
        .onSuccess(v -> LOG.info("{}: done", what))
        .onFailure(
            err -> {
              long next = Math.min(MAX_PAUSE_MILLIS, pauseMillis * 2);
              long pause = next / 2 + ThreadLocalRandom.current().nextLong(next / 2 + 1);
              LOG.warn("{}: not yet ({}); next try in {} ms", what, err.toString(), pause);
              undo.get()
                  .onComplete(
                      ar ->
                          vertx.setTimer(
                              pause, t -> run(vertx, what, attempt, undo, stopped, next)));
            });
  }
}
