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
    Future<PreparedStatement> reconcileProgress =
        client.prepare("SELECT shard, done_until FROM " + ks + ".rollup_shards WHERE shard IN ?");
    Future<PreparedStatement> countProgress =
        client.prepare(
            "SELECT shard, counted_until FROM " + ks + ".count_progress WHERE shard IN ?");
    Future<PreparedStatement> deviceReopened =
        client.prepare("SELECT hour FROM " + ks + ".device_reopened_hours WHERE device_id = ?");
    // only hours that may be exact (they start before reconciledThrough)
    Future<PreparedStatement> deviceExact =
        client.prepare(
            "SELECT hour, name, events FROM "
                + ks
                + ".device_exact_counts WHERE device_id = ? AND hour < ?");
    Future<PreparedStatement> deviceApprox =
        client.prepare(
            "SELECT hour, name, events FROM "
                + ks
                + ".device_counts_by_hour WHERE day = ? AND shard = ? AND device_id = ?");
    Future<PreparedStatement> dayReopened =
        client.prepare(
            "SELECT shard, hour FROM " + ks + ".shard_reopened_hours WHERE day = ? AND shard IN ?");
    Future<PreparedStatement> dayExact =
        client.prepare(
            "SELECT hour, dimension, value, events FROM "
                + ks
                + ".status_exact_by_hour WHERE day = ? AND shard = ? AND hour < ?");
    Future<PreparedStatement> dayApprox =
        client.prepare(
            "SELECT hour, dimension, value, events FROM "
                + ks
                + ".status_counts_by_hour WHERE day = ? AND shard = ?");
    Future<PreparedStatement> abnormalHour =
        client.prepare(
            "SELECT code, device_id, last_ts FROM "
                + ks
                + ".abnormal_devices_by_hour WHERE hour = ? AND salt = ?");
    Future<PreparedStatement> rollupDay =
        client.prepare(
            "SELECT hour, metric, count, min, max, sum FROM "
                + ks
                + ".rollups_by_device WHERE device_id = ? AND day = ? AND hour >= ? AND hour < ?");
    Future<PreparedStatement> activityHour =
        client.prepare(
            "SELECT device_id, last_ts FROM "
                + ks
                + ".devices_by_hour WHERE hour = ? AND shard = ?");
    return Future.all(
            List.of(
                reconcileProgress,
                countProgress,
                deviceReopened,
                deviceExact,
                deviceApprox,
                dayReopened,
                dayExact,
                dayApprox,
                abnormalHour,
                rollupDay,
                activityHour))
        .map(
            all ->
                new StatsStatements(
                    reconcileProgress.result(),
                    countProgress.result(),
                    deviceReopened.result(),
                    deviceExact.result(),
                    deviceApprox.result(),
                    dayReopened.result(),
                    dayExact.result(),
                    dayApprox.result(),
                    abnormalHour.result(),
                    rollupDay.result(),
                    activityHour.result()));
  }
}
