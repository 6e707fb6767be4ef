package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Sends the writer's statements: through the {@link StatementLimiter}, marked idempotent (every
 * write here sets the same cells of the same key, so the driver may speculate and we may retry),
 * retried with exponential backoff, timed per kind. Used from the writer's event loop only.
 */
final class StatementWriter {
  private final Vertx vertx;
  private final CassandraClient client;
  private final StatementLimiter limiter;
  private final AmberMeters meters;
  private final WriteRetries retries;

  StatementWriter(
      Vertx vertx,
      CassandraClient client,
      StatementLimiter limiter,
      AmberMeters meters,
      AmberConfig.Writer cfg) {
    this.vertx = vertx;
    this.client = client;
    this.limiter = limiter;
    this.meters = meters;
    this.retries =
        new WriteRetries(
            cfg.retryMaxAttempts(),
            cfg.retryInitialBackoff().toMillis(),
            cfg.retryUnsentWindow().toMillis());
  }

  /**
   * {@code build} makes the statement for the time an attempt is sent (after any wait in the
   * limiter's queue); the future holds the time of the attempt that succeeded. Each attempt is
   * bounded by cassandra.request-timeout.
   */
  Future<Long> write(String kind, LongFunction<Statement<?>> build) {
    Timer latency = meters.writeLatency(kind);
    DistributionSummary rows = meters.writeStatementRows(kind);
    return withRetry(
            () ->
                limiter.submit(
                    () -> {
                      long at = ClusterClock.shared().millis();
                      Statement<?> s = build.apply(at).setIdempotent(true);
                      rows.record(s instanceof BatchStatement b ? b.size() : 1);
                      long t0 = System.nanoTime();
                      return client
                          .execute(s)
                          .map(
                              rs -> {
                                latency.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
                                meters.speculativeExecutions(
                                    rs.getExecutionInfo().getSpeculativeExecutionCount());
                                return at;
                              });
                    }),
            1,
            System.nanoTime())
        .onFailure(err -> meters.writeFailed(kind));
  }

  private <T> Future<T> withRetry(Supplier<Future<T>> attempt, int attemptNo, long firstNanos) {
    return attempt
        .get()
        .recover(
            err -> {
              long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstNanos);
              long delay = retries.delayAfter(attemptNo, elapsed, err);
              if (delay == WriteRetries.GIVE_UP) {
                return Future.failedFuture(err);
              }
              if (retries.beyondAttempts(attemptNo)) {
                meters.unsentWriteRetried();
              }
              Promise<T> retried = Promise.promise();
              vertx.setTimer(
                  delay, id -> withRetry(attempt, attemptNo + 1, firstNanos).onComplete(retried));
              return retried.future();
            });
  }
}
