package io.ambergarden.counter;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;

/**
 * The counter verticle's CQL, prepared once at start. The keyspace is a validated config
 * identifier.
 */
record CounterStatements(
    PreparedStatement dayUpdate, PreparedStatement deviceUpdate, PreparedStatement deleteDay) {

  static Future<CounterStatements> prepare(CassandraClient client, String ks) {
    Future<PreparedStatement> dayUpdate =
        client.prepare(
            "UPDATE "
                + ks
                + ".status_counts_by_day"
                + " SET events = events + ? WHERE day = ? AND shard = ? AND dimension = ? AND value = ?");
    Future<PreparedStatement> deviceUpdate =
        client.prepare(
            "UPDATE "
                + ks
                + ".device_counters"
                + " SET events = events + ? WHERE device_id = ? AND name = ?");
    // a partition delete: one tombstone for a whole (day, shard), see CounterJanitor
    Future<PreparedStatement> deleteDay =
        client.prepare("DELETE FROM " + ks + ".status_counts_by_day WHERE day = ? AND shard = ?");
    return Future.all(dayUpdate, deviceUpdate, deleteDay)
        .map(
            all ->
                new CounterStatements(
                    dayUpdate.result(), deviceUpdate.result(), deleteDay.result()));
  }
}
