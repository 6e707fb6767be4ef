package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.CassandraClients;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * Finds the first bucket of a window that holds a row, in one read of the window's partitions (one
 * row each at most), so a shard catching up on a long run of empty buckets (after a lease gap or at
 * a new keyspace) reads and advances over them at once instead of one read and one lightweight
 * transaction per bucket.
 */
final class BucketProbe {
  /** Buckets probed in one read. */
  static final int WINDOW = 32;

  private final CassandraClient client;
  private final PreparedStatement probe;
  private final RollupMarks marks;
  private final Duration safety;

  /**
   * {@code probe} binds (shard, list of buckets) and selects the bucket column; buckets are due
   * once they ended {@code safety} ago.
   */
  BucketProbe(CassandraClient client, PreparedStatement probe, RollupMarks marks, Duration safety) {
    this.client = client;
    this.probe = probe;
    this.marks = marks;
    this.safety = safety;
  }

  /**
   * A scan's next step from {@code from}: the bucket to process, if a due bucket of the window
   * holds anything (the empty ones before it are skipped), and where progress moves to after it.
   */
  record Step(OptionalLong bucket, long next) {}

  /** The next step from {@code from}; empty when no bucket is due yet. */
  private Future<Optional<Step>> next(int shard, long from, long now) {
    List<Long> window = marks.dueWindow(from, now, safety, WINDOW);
    if (window.isEmpty()) {
      return Future.succeededFuture(Optional.empty());
    }
    return firstNonEmpty(shard, window)
        .map(
            first ->
                Optional.of(
                    new Step(
                        first,
                        first.orElse(window.get(window.size() - 1)) + marks.bucketMillis())));
  }

  /**
   * One scan step from {@code from}: skips the empty due buckets, hands the first non-empty one to
   * {@code process}, and returns where progress moves to; empty when no bucket is due yet.
   */
  Future<OptionalLong> step(int shard, long from, long now, LongFunction<Future<?>> process) {
    return next(shard, from, now)
        .compose(
            step -> {
              if (step.isEmpty()) {
                return Future.succeededFuture(OptionalLong.empty());
              }
              OptionalLong bucket = step.get().bucket();
              Future<?> done =
                  bucket.isEmpty() ? Future.succeededFuture() : process.apply(bucket.getAsLong());
              return done.map(v -> OptionalLong.of(step.get().next()));
            });
  }

  /** The CQL of a probe of {@code table} partitioned by (shard, {@code bucketColumn}). */
  static String cql(String table, String bucketColumn) {
    return "SELECT "
        + bucketColumn
        + " FROM "
        + table
        + " WHERE shard = ? AND "
        + bucketColumn
        + " IN ? PER PARTITION LIMIT 1";
  }

  /** The earliest bucket of {@code window} that holds a row; empty when none does. */
  private Future<OptionalLong> firstNonEmpty(int shard, List<Long> window) {
    List<Instant> buckets = new ArrayList<>(window.size());
    window.forEach(b -> buckets.add(Instant.ofEpochMilli(b)));
    return client
        .executeWithFullFetch(
            probe
                .bind(shard, buckets)
                .setIdempotent(true)
                .setExecutionProfileName(CassandraClients.READ_PROFILE))
        .map(BucketProbe::earliest);
  }

  private static OptionalLong earliest(List<Row> rows) {
    return rows.stream().mapToLong(r -> r.getInstant(0).toEpochMilli()).min();
  }
}
