package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
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
    Future<PreparedStatement> insertImage =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".image_by_id (image_id, device_id, content_type, bytes, sha256, tags, created,"
                + " object_key, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')");
    Future<PreparedStatement> insertByDevice =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".images_by_device (device_id, month, created, image_id, content_type, bytes,"
                + " sha256, tags, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')");
    Future<PreparedStatement> insertByTag =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".images_by_tag (tag, month, created, image_id, device_id, content_type, bytes,"
                + " sha256, tags, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')");
    Future<PreparedStatement> insertDeviceMonth =
        client.prepare(
            "INSERT INTO " + ks + ".image_months_by_device (device_id, month) VALUES (?, ?)");
    Future<PreparedStatement> insertTagMonth =
        client.prepare("INSERT INTO " + ks + ".image_months_by_tag (tag, month) VALUES (?, ?)");
    Future<PreparedStatement> readImage =
        client.prepare(
            "SELECT " + IMAGE_COLUMNS + " FROM " + ks + ".image_by_id WHERE image_id = ?");
    Future<PreparedStatement> deleteImage =
        client.prepare(
            "UPDATE "
                + ks
                + ".image_by_id SET status = 'deleted', deleted_at = ? WHERE image_id = ?");
    Future<PreparedStatement> deleteByDevice =
        client.prepare(
            "UPDATE "
                + ks
                + ".images_by_device SET status = 'deleted' WHERE device_id = ? AND month = ?"
                + " AND created = ? AND image_id = ?");
    Future<PreparedStatement> deleteByTag =
        client.prepare(
            "UPDATE "
                + ks
                + ".images_by_tag SET status = 'deleted' WHERE tag = ? AND month = ?"
                + " AND created = ? AND image_id = ?");
    Future<PreparedStatement> insertPurgeMark =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".image_purge_marks (shard, due_bucket, image_id) VALUES (?, ?, ?) USING TTL ?");
    Future<PreparedStatement> insertPurgeBucket =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".image_purge_buckets (shard, due_bucket) VALUES (?, ?) USING TTL ?");
    Future<PreparedStatement> insertShare =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".image_shares (share_hash, image_id, expires_at) VALUES (?, ?, ?) USING TTL ?");
    Future<PreparedStatement> readShare =
        client.prepare(
            "SELECT image_id, expires_at FROM " + ks + ".image_shares WHERE share_hash = ?");
    return Future.all(
            List.of(
                insertImage,
                insertByDevice,
                insertByTag,
                insertDeviceMonth,
                insertTagMonth,
                readImage,
                deleteImage,
                deleteByDevice,
                deleteByTag,
                insertPurgeMark,
                insertPurgeBucket,
                insertShare,
                readShare))
        .map(
            all ->
                new ImageStatements(
                    insertImage.result(),
                    insertByDevice.result(),
                    insertByTag.result(),
                    insertDeviceMonth.result(),
                    insertTagMonth.result(),
                    readImage.result(),
                    deleteImage.result(),
                    deleteByDevice.result(),
                    deleteByTag.result(),
                    insertPurgeMark.result(),
                    insertPurgeBucket.result(),
                    insertShare.result(),
                    readShare.result()));
  }
}
