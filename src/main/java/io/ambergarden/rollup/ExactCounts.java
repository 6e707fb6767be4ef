package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Makes the counts of closed hours exact, as part of the rollup recompute: each recomputed (device,
 * hour) gets its exact counts written as plain rows (an upsert of the hour's number, never a delta,
 * stamped like the rollup rows so a stale lease owner's older count loses), and once a mark bucket
 * is done, each hour it touched has its shard's day stats summed again from the devices' rows, and
 * the reopened-hour rows its marks name are closed.
 */
final class ExactCounts {
  private final CassandraClient client;
  private final ExactCountStatements cql;
  private final Duration retention;

  ExactCounts(CassandraClient client, ExactCountStatements cql, AmberConfig config) {
    this.client = client;
    this.cql = cql;
    this.retention = config.events().retention();
  }

  /** Writes one (device, hour)'s exact counts: per device cell name and per dimension. */
  Future<Void> write(int shard, String deviceId, long hour, HourCounts counts, long stampMicros) {
    long now = ClusterClock.shared().millis();
    Instant h = Instant.ofEpochMilli(hour);
    int ttl = RowKeys.ttlSeconds(hour + TimeBuckets.HOUR, now, retention);
    List<Future<?>> writes = new ArrayList<>();
    counts
        .byName()
        .forEach(
            (name, n) ->
                writes.add(
                    execute(cql.writeDeviceExact().bind(deviceId, h, name, n, stampMicros))));
    counts
        .byDimension()
        .forEach(
            (d, n) ->
                writes.add(
                    execute(
                        cql.writeShardHour()
                            .bind(
                                shard,
                                h,
                                deviceId,
                                d.dimension(),
                                d.value(),
                                n,
                                ttl,
                                stampMicros))));
    return Future.all(writes).mapEmpty();
  }

  /**
   * After the recompute of late marks of {@code bucket}: deletes their devices' reopened-hour rows
   * filed under this bucket or earlier (marks of earlier buckets are all recomputed, buckets being
   * processed in order).
   */
  Future<Void> closeDevices(long bucket, List<RollupMarks.Mark> lateMarks) {
    Instant upTo = Instant.ofEpochMilli(bucket);
    List<Future<?>> deletes = new ArrayList<>();
    for (RollupMarks.Mark m : lateMarks) {
      deletes.add(
          execute(
              cql.deleteDeviceReopened().bind(m.deviceId(), Instant.ofEpochMilli(m.hour()), upTo)));
    }
    return Future.all(deletes).mapEmpty();
  }

  /**
   * After every mark of {@code bucket} was recomputed: sums each touched hour's day stats again,
   * then deletes the shard's reopened-hour rows of the late ones.
   */
  Future<Void> closeBucket(
      int shard, long bucket, Set<Long> hours, Set<Long> lateHours, long stampMicros) {
    List<Future<?>> sums = new ArrayList<>();
    for (long hour : hours) {
      sums.add(sumShardHour(shard, hour, stampMicros));
    }
    Instant upTo = Instant.ofEpochMilli(bucket);
    return Future.all(sums)
        .compose(
            v -> {
              List<Future<?>> deletes = new ArrayList<>();
              for (long hour : lateHours) {
                deletes.add(
                    execute(
                        cql.deleteShardReopened()
                            .bind(
                                TimeBuckets.utcDay(hour),
                                shard,
                                Instant.ofEpochMilli(hour),
                                upTo)));
              }
              return Future.all(deletes).mapEmpty();
            });
  }

  /** One (shard, hour)'s exact day stats: the sum of its devices' rows. */
  private Future<Void> sumShardHour(int shard, long hour, long stampMicros) {
    Instant h = Instant.ofEpochMilli(hour);
    return client
        .executeWithFullFetch(
            cql.readShardHour()
                .bind(shard, h)
                .setIdempotent(true)
                .setExecutionProfileName(CassandraClients.READ_PROFILE))
        .compose(
            rows -> {
              Map<HourCounts.Dimension, Long> sum = new TreeMap<>();
              for (Row r : rows) {
                HourCounts.addTo(
                    sum, new HourCounts.Dimension(r.getString(0), r.getString(1)), r.getLong(2));
              }
              // day stats are served one day past the retention (CounterJanitor)
              int ttl =
                  RowKeys.ttlSeconds(
                      hour + TimeBuckets.HOUR,
                      ClusterClock.shared().millis(),
                      retention.plusDays(2));
              List<Future<?>> writes = new ArrayList<>();
              sum.forEach(
                  (d, n) ->
                      writes.add(
                          execute(
                              cql.writeStatusExact()
                                  .bind(
                                      TimeBuckets.utcDay(hour),
                                      shard,
                                      h,
                                      d.dimension(),
                                      d.value(),
                                      n,
                                      ttl,
                                      stampMicros))));
              return Future.all(writes).mapEmpty();
            });
  }

  private Future<?> execute(Statement<?> s) {
    return client.execute(s.setIdempotent(true));
  }
}
