package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.CassandraClients;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

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

  /** {@code probe} binds (shard, list of buckets) and selects the bucket column. */
  BucketProbe(CassandraClient client, PreparedStatement probe) {
    this.client = client;
    this.probe = probe;
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
  Future<OptionalLong> firstNonEmpty(int shard, List<Long> window) {
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
