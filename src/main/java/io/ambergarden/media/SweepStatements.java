package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The blob sweeper's CQL, prepared once at start. Leases work as rollup_shards' do: taken and
 * renewed with lightweight transactions, progress advanced only by the lease owner.
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
    List<String> cql =
        List.of(
            "INSERT INTO "
                + shards
                + " (shard, owner, lease_until, orphans_until, purges_until)"
                + " VALUES (?, '', ?, ?, ?) IF NOT EXISTS",
            "SELECT shard, owner, lease_until, orphans_until, purges_until FROM "
                + shards
                + " WHERE shard IN ?",
            "UPDATE "
                + shards
                + " SET owner = ?, lease_until = ? WHERE shard = ? IF lease_until = ?",
            // renew, and release (lease_until = the epoch)
            "UPDATE " + shards + " SET lease_until = ? WHERE shard = ? IF owner = ?",
            "UPDATE " + shards + " SET orphans_until = ? WHERE shard = ? IF owner = ?",
            "UPDATE " + shards + " SET purges_until = ? WHERE shard = ? IF owner = ?",
            "SELECT image_id FROM " + ks + ".image_purge_marks WHERE shard = ? AND due_bucket = ?",
            "SELECT due_bucket FROM "
                + ks
                + ".image_purge_buckets WHERE shard = ? AND due_bucket >= ? AND due_bucket <= ?"
                + " LIMIT ?",
            "SELECT object_key, status, deleted_at, purged_at FROM "
                + ks
                + ".image_by_id WHERE image_id = ?",
            "UPDATE " + ks + ".image_by_id SET purged_at = ? WHERE image_id = ?");
    List<Future<PreparedStatement>> prepared = new ArrayList<>();
    cql.forEach(s -> prepared.add(client.prepare(s)));
    return Future.all(prepared)
        .map(
            all ->
                new SweepStatements(
                    prepared.get(0).result(),
                    prepared.get(1).result(),
                    prepared.get(2).result(),
                    prepared.get(3).result(),
                    prepared.get(4).result(),
                    prepared.get(5).result(),
                    prepared.get(6).result(),
                    prepared.get(7).result(),
                    prepared.get(8).result(),
                    prepared.get(9).result()));
  }
}
