package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The blob sweeper's CQL, prepared once at start. Leases are taken and renewed with lightweight
 * transactions ({@code lease.LeaseClaims}, unfenced), progress advanced only by the lease owner.
 */
record SweepStatements(
    PreparedStatement createShard,
    PreparedStatement readShards,
    PreparedStatement acquire,
    PreparedStatement renew,
    PreparedStatement advanceOrphans,
    PreparedStatement advancePurges,
    PreparedStatement readMarks,
    PreparedStatement readPurgeBuckets,
    PreparedStatement readImage,
    PreparedStatement markPurged) {

  static Future<SweepStatements> prepare(CassandraClient client, String ks) {
    String shards = ks + ".media_sweep_shards";
    Future<PreparedStatement> createShard =
        client.prepare(
            "INSERT INTO "
                + shards
                + " (shard, owner, lease_until, orphans_until, purges_until)"
                + " VALUES (?, '', ?, ?, ?) IF NOT EXISTS");
    Future<PreparedStatement> readShards =
        client.prepare(
            "SELECT shard, owner, lease_until, orphans_until, purges_until FROM "
                + shards
                + " WHERE shard IN ?");
    Future<PreparedStatement> acquire =
        client.prepare(
            "UPDATE "
                + shards
                + " SET owner = ?, lease_until = ? WHERE shard = ? IF lease_until = ?");
    // renew, and release (lease_until = the epoch)
    Future<PreparedStatement> renew =
        client.prepare("UPDATE " + shards + " SET lease_until = ? WHERE shard = ? IF owner = ?");
    Future<PreparedStatement> advanceOrphans =
        client.prepare("UPDATE " + shards + " SET orphans_until = ? WHERE shard = ? IF owner = ?");
    Future<PreparedStatement> advancePurges =
        client.prepare("UPDATE " + shards + " SET purges_until = ? WHERE shard = ? IF owner = ?");
    Future<PreparedStatement> readMarks =
        client.prepare(
            "SELECT image_id FROM " + ks + ".image_purge_marks WHERE shard = ? AND due_bucket = ?");
    Future<PreparedStatement> readPurgeBuckets =
        client.prepare(
            "SELECT due_bucket FROM "
                + ks
                + ".image_purge_buckets WHERE shard = ? AND due_bucket >= ? AND due_bucket <= ?"
                + " LIMIT ?");
    Future<PreparedStatement> readImage =
        client.prepare(
            "SELECT object_key, status, deleted_at, purged_at FROM "
                + ks
                + ".image_by_id WHERE image_id = ?");
    Future<PreparedStatement> markPurged =
        client.prepare("UPDATE " + ks + ".image_by_id SET purged_at = ? WHERE image_id = ?");
    return Future.all(
            List.of(
                createShard,
                readShards,
                acquire,
                renew,
                advanceOrphans,
                advancePurges,
                readMarks,
                readPurgeBuckets,
                readImage,
                markPurged))
        .map(
            all ->
                new SweepStatements(
                    createShard.result(),
                    readShards.result(),
                    acquire.result(),
                    renew.result(),
                    advanceOrphans.result(),
                    advancePurges.result(),
                    readMarks.result(),
                    readPurgeBuckets.result(),
                    readImage.result(),
                    markPurged.result()));
  }
}
