package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The series reads' CQL, prepared once at start. The keyspace is a validated config identifier;
 * request values are only ever bound.
 */
record SeriesStatements(
    PreparedStatement shardDoneUntil,
    PreparedStatement reopenedHours,
    PreparedStatement rollupHours,
    PreparedStatement bucketsOfDevice,
    PreparedStatement slicesOfDevice,
    PreparedStatement metricsInRange) {

  static Future<SeriesStatements> prepare(CassandraClient client, String ks) {
    Future<PreparedStatement> shardDoneUntil =
        client.prepare("SELECT done_until FROM " + ks + ".rollup_shards WHERE shard = ?");
    Future<PreparedStatement> reopenedHours =
        client.prepare(
            "SELECT hour FROM "
                + ks
                + ".device_reopened_hours WHERE device_id = ? AND hour >= ? AND hour < ?");
    Future<PreparedStatement> rollupHours =
        client.prepare(
            "SELECT hour, metric, count, min, max, sum FROM "
                + ks
                + ".rollups_by_device WHERE device_id = ? AND day = ? AND hour >= ? AND hour < ?");
    Future<PreparedStatement> bucketsOfDevice =
        client.prepare(
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_device WHERE device_id = ? AND bucket >= ? AND bucket <= ?");
    Future<PreparedStatement> slicesOfDevice =
        client.prepare(
            "SELECT bucket, slice_start, salts FROM "
                + ks
                + ".device_slices WHERE device_id = ? AND bucket >= ? AND bucket <= ?");
    Future<PreparedStatement> metricsInRange =
        client.prepare(
            "SELECT ts, event_id, metrics FROM "
                + ks
                + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts >= ? AND ts < ?");
    return Future.all(
            List.of(
                shardDoneUntil,
                reopenedHours,
                rollupHours,
                bucketsOfDevice,
                slicesOfDevice,
                metricsInRange))
        .map(
            all ->
                new SeriesStatements(
                    shardDoneUntil.result(),
                    reopenedHours.result(),
                    rollupHours.result(),
                    bucketsOfDevice.result(),
                    slicesOfDevice.result(),
                    metricsInRange.result()));
  }
}
