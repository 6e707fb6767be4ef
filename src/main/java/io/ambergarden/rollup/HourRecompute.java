package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Recomputes the rollup rows of one (device, hour) from its detail rows. */
final class HourRecompute {
  private final CassandraClient client;
  private final RollupStatements cql;
  private final AmberConfig config;
  private final TimeBuckets detailBuckets;
  private final ExactCounts exact;

  /** What one (device, hour) holds: per metric, and its exact counts. */
  record Hour(Map<String, RollupAggregator.Stats> stats, HourCounts counts) {}

  /**
   * @param exact where the hour's exact counts go; null when counters are off
   */
  HourRecompute(
      CassandraClient client, RollupStatements cql, AmberConfig config, ExactCounts exact) {
    this.client = client;
    this.cql = cql;
    this.config = config;
    this.exact = exact;
    this.detailBuckets = new TimeBuckets(config.cassandra().bucket().length);
  }

  /**
   * Recomputes one (device, hour) from detail and overwrites its rollup rows and its exact counts.
   * A hot device's hour spans several partitions (device_slices): all are read, and an event stored
   * twice (a redelivery racing a slice split) counts once.
   *
   * @param stampMicros the rows' write timestamp, taken before the detail is read, so a recompute
   *     that read later (or under a later lease) wins whichever write lands last
   */
  Future<Void> recompute(int shard, String deviceId, long hour, long stampMicros) {
    return aggregate(deviceId, hour)
        .compose(
            h -> {
              Future<Void> rollups = write(deviceId, hour, h.stats(), stampMicros);
              if (exact == null || h.counts().byName().isEmpty()) {
                return rollups;
              }
              return Future.all(
                      rollups, exact.write(shard, deviceId, hour, h.counts(), stampMicros))
                  .mapEmpty();
            });
  }

  /** Reads the (device, hour) from detail and aggregates it per metric and per count. */
  Future<Hour> aggregate(String deviceId, long hour) {
    long bucket = detailBuckets.bucketOf(hour);
    return read(cql.readSlices().bind(deviceId, Instant.ofEpochMilli(bucket)))
        .compose(
            sliceRows -> {
              List<DetailSlices.Slice> slices = new ArrayList<>();
              sliceRows.forEach(
                  r ->
                      slices.add(
                          new DetailSlices.Slice(r.getInstant(0).toEpochMilli(), r.getInt(1))));
              List<Future<List<Row>>> parts = new ArrayList<>();
              for (long partition : DetailSlices.partitionsOf(bucket, slices)) {
                parts.add(
                    read(
                        cql.readDetail()
                            .bind(
                                deviceId,
                                Instant.ofEpochMilli(partition),
                                Instant.ofEpochMilli(hour),
                                Instant.ofEpochMilli(hour + TimeBuckets.HOUR))));
              }
              return Future.all(parts).map(v -> parts);
            })
        .map(
            parts -> {
              RollupAggregator agg = new RollupAggregator();
              HourCounts counts = new HourCounts();
              Set<String> seen = parts.size() > 1 ? new HashSet<>() : null;
              for (Future<List<Row>> part : parts) {
                for (Row r : part.result()) {
                  if (seen != null
                      && !seen.add(r.getInstant(0).toEpochMilli() + "/" + r.getString(1))) {
                    continue;
                  }
                  Map<String, Double> m = r.get(2, CqlTypes.METRICS);
                  if (m != null) {
                    agg.add(m);
                  }
                  counts.add(r.getString(3), r.isNull(4) ? null : r.getInt(4), r.getString(5));
                }
              }
              return new Hour(agg.result(), counts);
            });
  }

  /** Overwrites the (device, hour)'s rollup rows, each cell with the given write timestamp. */
  Future<Void> write(
      String deviceId, long hour, Map<String, RollupAggregator.Stats> stats, long stampMicros) {
    long now = ClusterClock.shared().millis();
    int ttl = RowKeys.ttlSeconds(hour + TimeBuckets.HOUR, now, config.events().retention());
    List<Future<?>> writes = new ArrayList<>();
    stats.forEach(
        (metric, st) ->
            writes.add(
                client.execute(
                    cql.writeRollup()
                        .bind(
                            deviceId,
                            TimeBuckets.utcDay(hour),
                            Instant.ofEpochMilli(hour),
                            metric,
                            st.count(),
                            st.min(),
                            st.max(),
                            st.sum(),
                            Instant.ofEpochMilli(now),
                            ttl,
                            stampMicros)
                        .setIdempotent(true))));
    return Future.all(writes).mapEmpty();
  }

  private Future<List<Row>> read(Statement<?> s) {
    return client.executeWithFullFetch(
        s.setIdempotent(true).setExecutionProfileName(CassandraClients.READ_PROFILE));
  }
}
