package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The image store verticle's CQL, prepared once at start. The keyspace is a validated config
 * identifier.
 */
record ImageStatements(
    PreparedStatement insertImage,
    PreparedStatement insertByDevice,
    PreparedStatement insertByTag,
    PreparedStatement insertDeviceMonth,
    PreparedStatement insertTagMonth,
    PreparedStatement readImage,
    PreparedStatement deleteImage,
    PreparedStatement deleteByDevice,
    PreparedStatement deleteByTag,
    PreparedStatement insertPurgeMark,
    PreparedStatement insertPurgeBucket,
    PreparedStatement insertShare,
    PreparedStatement readShare) {

  /** Columns of {@link #readImage}, in the order {@code ImageStoreVerticle} reads them. */
  static final String IMAGE_COLUMNS =
      "device_id, content_type, bytes, sha256, tags, created, object_key, status";

  static Future<ImageStatements> prepare(CassandraClient client, String ks) {
    List<String> cql =
        List.of(
            "INSERT INTO "
                + ks
                + ".image_by_id (image_id, device_id, content_type, bytes, sha256, tags, created,"
                + " object_key, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')",
            "INSERT INTO "
                + ks
                + ".images_by_device (device_id, month, created, image_id, content_type, bytes,"
                + " sha256, tags, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')",
            "INSERT INTO "
                + ks
                + ".images_by_tag (tag, month, created, image_id, device_id, content_type, bytes,"
                + " sha256, tags, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')",
            "INSERT INTO " + ks + ".image_months_by_device (device_id, month) VALUES (?, ?)",
            "INSERT INTO " + ks + ".image_months_by_tag (tag, month) VALUES (?, ?)",
            "SELECT " + IMAGE_COLUMNS + " FROM " + ks + ".image_by_id WHERE image_id = ?",
            "UPDATE "
                + ks
                + ".image_by_id SET status = 'deleted', deleted_at = ? WHERE image_id = ?",
            "UPDATE "
                + ks
                + ".images_by_device SET status = 'deleted' WHERE device_id = ? AND month = ?"
                + " AND created = ? AND image_id = ?",
            "UPDATE "
                + ks
                + ".images_by_tag SET status = 'deleted' WHERE tag = ? AND month = ?"
                + " AND created = ? AND image_id = ?",
            "INSERT INTO "
                + ks
                + ".image_purge_marks (shard, due_bucket, image_id) VALUES (?, ?, ?) USING TTL ?",
            "INSERT INTO "
                + ks
                + ".image_purge_buckets (shard, due_bucket) VALUES (?, ?) USING TTL ?",
            "INSERT INTO "
                + ks
                + ".image_shares (share_hash, image_id, expires_at) VALUES (?, ?, ?) USING TTL ?",
            "SELECT image_id, expires_at FROM " + ks + ".image_shares WHERE share_hash = ?");
    List<Future<PreparedStatement>> prepared = new ArrayList<>();
    cql.forEach(s -> prepared.add(client.prepare(s)));
    return Future.all(prepared)
        .map(
            all ->
                new ImageStatements(
                    prepared.get(0).result(),
                    prepared.get(1).result(),
                    prepared.get(2).result(),
                    prepared.get(3).result(),
                    prepared.get(4).result(),
                    prepared.get(5).result(),
                    prepared.get(6).result(),
                    prepared.get(7).result(),
                    prepared.get(8).result(),
                    prepared.get(9).result(),
                    prepared.get(10).result(),
                    prepared.get(11).result(),
                    prepared.get(12).result()));
  }
}
