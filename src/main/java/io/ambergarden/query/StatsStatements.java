package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;

/**
 * The stats verticle's CQL, prepared once at start. The keyspace is a validated config identifier.
 */
record StatsStatements(
    PreparedStatement dayShard,
    PreparedStatement deviceCounters,
    PreparedStatement abnormalHour,
    PreparedStatement rollupDay,
    PreparedStatement activityHour) {

  static Future<StatsStatements> prepare(CassandraClient client, String ks) {
    Future<PreparedStatement> dayShard =
        client.prepare(
            "SELECT dimension, value, events FROM "
                + ks
                + ".status_counts_by_day WHERE day = ? AND shard = ?");
    Future<PreparedStatement> deviceCounters =
        client.prepare("SELECT name, events FROM " + ks + ".device_counters WHERE device_id = ?");
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
    return Future.all(dayShard, deviceCounters, abnormalHour, rollupDay, activityHour)
        .map(
            all ->
                new StatsStatements(
                    dayShard.result(),
                    deviceCounters.result(),
                    abnormalHour.result(),
                    rollupDay.result(),
                    activityHour.result()));
  }
}
