package io.ambergarden.counter;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;

/**
 * The counter verticle's CQL, prepared once at start. The keyspace is a validated config
 * identifier.
 */
record CounterStatements(PreparedStatement dayUpdate, PreparedStatement deviceUpdate) {

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
    return Future.all(dayUpdate, deviceUpdate)
        .map(all -> new CounterStatements(dayUpdate.result(), deviceUpdate.result()));
  }
}
