package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The stats verticle's CQL, prepared once at start. The keyspace is a validated config identifier.
 */
record StatsStatements(
    PreparedStatement reconcileProgress,
    PreparedStatement countProgress,
    PreparedStatement deviceReopened,
    PreparedStatement deviceExact,
    PreparedStatement deviceApprox,
    PreparedStatement dayReopened,
    PreparedStatement dayExact,
    PreparedStatement dayApprox,
    PreparedStatement abnormalHour,
    PreparedStatement rollupDay,
    PreparedStatement activityHour) {

  static Future<StatsStatements> prepare(CassandraClient client, String ks) {
    List<Future<PreparedStatement>> all =
        List.of(
            client.prepare(
                "SELECT shard, done_until FROM " + ks + ".rollup_shards WHERE shard IN ?"),
            client.prepare(
                "SELECT shard, counted_until FROM " + ks + ".count_progress WHERE shard IN ?"),
            client.prepare("SELECT hour FROM " + ks + ".device_reopened_hours WHERE device_id = ?"),
            // only hours that may be exact (they start before reconciledThrough)
            client.prepare(
                "SELECT hour, name, events FROM "
                    + ks
                    + ".device_exact_counts WHERE device_id = ? AND hour < ?"),
            client.prepare(
                "SELECT hour, name, events FROM "
                    + ks
                    + ".device_counts_by_hour WHERE day = ? AND shard = ? AND device_id = ?"),
            client.prepare(
                "SELECT shard, hour FROM "
                    + ks
                    + ".shard_reopened_hours WHERE day = ? AND shard IN ?"),
            client.prepare(
                "SELECT hour, dimension, value, events FROM "
                    + ks
                    + ".status_exact_by_hour WHERE day = ? AND shard = ? AND hour < ?"),
            client.prepare(
                "SELECT hour, dimension, value, events FROM "
                    + ks
                    + ".status_counts_by_hour WHERE day = ? AND shard = ?"),
            client.prepare(
                "SELECT code, device_id, last_ts FROM "
                    + ks
                    + ".abnormal_devices_by_hour WHERE hour = ? AND salt = ?"),
            client.prepare(
                "SELECT hour, metric, count, min, max, sum FROM "
                    + ks
                    + ".rollups_by_device WHERE device_id = ? AND day = ? AND hour >= ? AND hour < ?"),
            client.prepare(
                "SELECT device_id, last_ts FROM "
                    + ks
                    + ".devices_by_hour WHERE hour = ? AND shard = ?"));
    return Future.all(all)
        .map(
            done ->
                new StatsStatements(
                    all.get(0).result(),
                    all.get(1).result(),
                    all.get(2).result(),
                    all.get(3).result(),
                    all.get(4).result(),
                    all.get(5).result(),
                    all.get(6).result(),
                    all.get(7).result(),
                    all.get(8).result(),
                    all.get(9).result(),
                    all.get(10).result()));
  }
}
