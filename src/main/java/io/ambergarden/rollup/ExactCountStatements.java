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
    Future<PreparedStatement> writeDeviceExact =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".device_exact_counts (device_id, hour, name, events)"
                + " VALUES (?, ?, ?, ?) USING TIMESTAMP ?");
    Future<PreparedStatement> writeShardHour =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".shard_hour_counts (shard, hour, device_id, dimension, value,"
                + " events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?");
    Future<PreparedStatement> readShardHour =
        client.prepare(
            "SELECT dimension, value, events FROM "
                + ks
                + ".shard_hour_counts"
                + " WHERE shard = ? AND hour = ?");
    Future<PreparedStatement> writeStatusExact =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".status_exact_by_hour (day, shard, hour, dimension, value,"
                + " events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?");
    Future<PreparedStatement> deleteDeviceReopened =
        client.prepare(
            "DELETE FROM "
                + ks
                + ".device_reopened_hours"
                + " WHERE device_id = ? AND hour = ? AND due_bucket <= ?");
    Future<PreparedStatement> deleteShardReopened =
        client.prepare(
            "DELETE FROM "
                + ks
                + ".shard_reopened_hours"
                + " WHERE day = ? AND shard = ? AND hour = ? AND due_bucket <= ?");
    Future<PreparedStatement> readJournal =
        client.prepare("SELECT facts FROM " + ks + ".count_journal WHERE shard = ? AND bucket = ?");
    Future<PreparedStatement> probeJournal =
        client.prepare(BucketProbe.cql(ks + ".count_journal", "bucket"));
    Future<PreparedStatement> createProgress =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".count_progress (shard, counted_until) VALUES (?, ?)"
                + " IF NOT EXISTS");
    Future<PreparedStatement> readProgress =
        client.prepare(
            "SELECT shard, counted_until FROM " + ks + ".count_progress WHERE shard IN ?");
    // compare-and-set on the value read: an owner whose lease was taken over cannot move it
    Future<PreparedStatement> advanceProgress =
        client.prepare(
            "UPDATE "
                + ks
                + ".count_progress SET counted_until = ? WHERE shard = ?"
                + " IF counted_until = ?");
    return Future.all(
            List.of(
                writeDeviceExact,
                writeShardHour,
                readShardHour,
                writeStatusExact,
                deleteDeviceReopened,
                deleteShardReopened,
                readJournal,
                probeJournal,
                createProgress,
                readProgress,
                advanceProgress))
        .map(
            all ->
                new ExactCountStatements(
                    writeDeviceExact.result(),
                    writeShardHour.result(),
                    readShardHour.result(),
                    writeStatusExact.result(),
                    deleteDeviceReopened.result(),
                    deleteShardReopened.result(),
                    readJournal.result(),
                    probeJournal.result(),
                    createProgress.result(),
                    readProgress.result(),
                    advanceProgress.result()));
  }
}
