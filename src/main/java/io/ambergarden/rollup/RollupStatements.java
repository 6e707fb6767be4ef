package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.ambergarden.lease.ShardLeases;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The rollup verticle's CQL, prepared once at start. The keyspace is a validated config identifier.
 */
record RollupStatements(
    PreparedStatement createShard,
    PreparedStatement readShards,
    PreparedStatement acquire,
    PreparedStatement renew,
    PreparedStatement release,
    PreparedStatement advance,
    PreparedStatement readMarks,
    PreparedStatement probeMarks,
    PreparedStatement readDetail,
    PreparedStatement writeRollup,
    PreparedStatement readSlices) {

  static Future<RollupStatements> prepare(CassandraClient client, String ks) {
    String shards = ks + ".rollup_shards";
    Future<PreparedStatement> createShard =
        client.prepare(
            "INSERT INTO "
                + shards
                + " (shard, owner, lease_until, done_until) VALUES (?, '', ?, ?) IF NOT EXISTS");
    Future<PreparedStatement> readShards =
        client.prepare(
            "SELECT shard, owner, lease_until, done_until FROM " + shards + " WHERE shard IN ?");
    Future<PreparedStatement> acquire =
        client.prepare(
            "UPDATE "
                + shards
                + " SET owner = ?, lease_until = ?"
                + " WHERE shard = ? IF lease_until = ?");
    // exact: lease_until only grows while a claim lasts, so the next claim's fencing window starts
    // above every write timestamp of this one (ShardTerms)
    Future<PreparedStatement> renew =
        client.prepare(
            "UPDATE "
                + shards
                + " SET lease_until = ? WHERE shard = ?"
                + " IF owner = ? AND lease_until = ?");
    // keeps lease_until: it is the floor of the next claim's write timestamps
    Future<PreparedStatement> release =
        client.prepare("UPDATE " + shards + " SET owner = '' WHERE shard = ? IF owner = ?");
    Future<PreparedStatement> advance =
        client.prepare(
            "UPDATE " + shards + " SET done_until = ? WHERE shard = ?" + " IF owner = ?");
    Future<PreparedStatement> readMarks =
        client.prepare(
            "SELECT hour, device_id FROM "
                + ks
                + ".rollup_marks"
                + " WHERE shard = ? AND due_bucket = ?");
    Future<PreparedStatement> probeMarks =
        client.prepare(BucketProbe.cql(ks + ".rollup_marks", "due_bucket"));
    Future<PreparedStatement> readDetail =
        client.prepare(
            "SELECT ts, event_id, metrics, status, code, device_type FROM "
                + ks
                + ".events_by_device"
                + " WHERE device_id = ? AND bucket = ? AND ts >= ? AND ts < ?");
    Future<PreparedStatement> writeRollup =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".rollups_by_device (device_id, day,"
                + " hour, metric, count, min, max, sum, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + " USING TTL ? AND TIMESTAMP ?");
    Future<PreparedStatement> readSlices =
        client.prepare(
            "SELECT slice_start, salts FROM "
                + ks
                + ".device_slices WHERE device_id = ? AND bucket = ?");
    return Future.all(
            List.of(
                createShard,
                readShards,
                acquire,
                renew,
                release,
                advance,
                readMarks,
                probeMarks,
                readDetail,
                writeRollup,
                readSlices))
        .map(
            all ->
                new RollupStatements(
                    createShard.result(),
                    readShards.result(),
                    acquire.result(),
                    renew.result(),
                    release.result(),
                    advance.result(),
                    readMarks.result(),
                    probeMarks.result(),
                    readDetail.result(),
                    writeRollup.result(),
                    readSlices.result()));
  }

  /** The lease LWTs of rollup_shards, fenced ({@link ShardLeases}). */
  ShardLeases.Statements leases() {
    return new ShardLeases.Statements(acquire, renew, release);
  }
}
