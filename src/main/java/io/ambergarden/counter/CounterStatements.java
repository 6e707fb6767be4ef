package io.ambergarden.counter;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.LocalDate;
import java.util.List;

/**
 * The counter verticle's CQL, prepared once at start. The keyspace is a validated config
 * identifier.
 */
record CounterStatements(
    PreparedStatement statusUpdate,
    PreparedStatement deviceUpdate,
    PreparedStatement deleteStatusDay,
    PreparedStatement deleteDeviceDay) {

  static Future<CounterStatements> prepare(CassandraClient client, String ks) {
    Future<PreparedStatement> statusUpdate =
        client.prepare(
            "UPDATE "
                + ks
                + ".status_counts_by_hour SET events = events + ?"
                + " WHERE day = ? AND shard = ? AND hour = ? AND dimension = ? AND value = ?");
    Future<PreparedStatement> deviceUpdate =
        client.prepare(
            "UPDATE "
                + ks
                + ".device_counts_by_hour SET events = events + ?"
                + " WHERE day = ? AND shard = ? AND device_id = ? AND hour = ? AND name = ?");
    // partition deletes: one tombstone for a whole (day, shard), see CounterJanitor
    Future<PreparedStatement> deleteStatusDay =
        client.prepare("DELETE FROM " + ks + ".status_counts_by_hour WHERE day = ? AND shard = ?");
    Future<PreparedStatement> deleteDeviceDay =
        client.prepare("DELETE FROM " + ks + ".device_counts_by_hour WHERE day = ? AND shard = ?");
    return Future.all(List.of(statusUpdate, deviceUpdate, deleteStatusDay, deleteDeviceDay))
        .map(
            all ->
                new CounterStatements(
                    statusUpdate.result(),
                    deviceUpdate.result(),
                    deleteStatusDay.result(),
                    deleteDeviceDay.result()));
  }

  /** The partition deletes of one (day, shard) in both tables. */
  List<com.datastax.oss.driver.api.core.cql.BoundStatement> deleteDay(LocalDate day, int shard) {
    return List.of(deleteStatusDay.bind(day, shard), deleteDeviceDay.bind(day, shard));
  }
}
