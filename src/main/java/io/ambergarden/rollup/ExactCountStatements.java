package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The CQL of exact counts and of the count journal, prepared once at start. The keyspace is a
 * validated config identifier.
 */
record ExactCountStatements(
    PreparedStatement writeDeviceExact,
    PreparedStatement writeShardHour,
    PreparedStatement readShardHour,
    PreparedStatement writeStatusExact,
    PreparedStatement deleteDeviceReopened,
    PreparedStatement deleteShardReopened,
    PreparedStatement readJournal,
    PreparedStatement probeJournal,
    PreparedStatement createProgress,
    PreparedStatement readProgress,
    PreparedStatement advanceProgress) {

  static Future<ExactCountStatements> prepare(CassandraClient client, String ks) {
    List<Future<PreparedStatement>> p =
        List.of(
            client.prepare(
                "INSERT INTO "
                    + ks
                    + ".device_exact_counts (device_id, hour, name, events)"
                    + " VALUES (?, ?, ?, ?) USING TIMESTAMP ?"),
            client.prepare(
                "INSERT INTO "
                    + ks
                    + ".shard_hour_counts (shard, hour, device_id, dimension, value,"
                    + " events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?"),
            client.prepare(
                "SELECT dimension, value, events FROM "
                    + ks
                    + ".shard_hour_counts"
                    + " WHERE shard = ? AND hour = ?"),
            client.prepare(
                "INSERT INTO "
                    + ks
                    + ".status_exact_by_hour (day, shard, hour, dimension, value,"
                    + " events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?"),
            client.prepare(
                "DELETE FROM "
                    + ks
                    + ".device_reopened_hours"
                    + " WHERE device_id = ? AND hour = ? AND due_bucket <= ?"),
            client.prepare(
                "DELETE FROM "
                    + ks
                    + ".shard_reopened_hours"
                    + " WHERE day = ? AND shard = ? AND hour = ? AND due_bucket <= ?"),
            client.prepare(
                "SELECT facts FROM " + ks + ".count_journal WHERE shard = ? AND bucket = ?"),
            client.prepare(BucketProbe.cql(ks + ".count_journal", "bucket")),
            client.prepare(
                "INSERT INTO "
                    + ks
                    + ".count_progress (shard, counted_until) VALUES (?, ?)"
                    + " IF NOT EXISTS"),
            client.prepare(
                "SELECT shard, counted_until FROM " + ks + ".count_progress WHERE shard IN ?"),
            // compare-and-set on the value read: an owner whose lease was taken over cannot move it
            client.prepare(
                "UPDATE "
                    + ks
                    + ".count_progress SET counted_until = ? WHERE shard = ?"
                    + " IF counted_until = ?"));
    return Future.all(p)
        .map(
            all ->
                new ExactCountStatements(
                    p.get(0).result(),
                    p.get(1).result(),
                    p.get(2).result(),
                    p.get(3).result(),
                    p.get(4).result(),
                    p.get(5).result(),
                    p.get(6).result(),
                    p.get(7).result(),
                    p.get(8).result(),
                    p.get(9).result(),
                    p.get(10).result()));
  }
}
