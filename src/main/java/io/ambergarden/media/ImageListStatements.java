package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The image list verticle's CQL, prepared once at start. Keyset reads: rows strictly before the
 * last one seen, as a tuple on the clustering columns, never an offset.
 */
record ImageListStatements(
    PreparedStatement deviceMonths,
    PreparedStatement tagMonths,
    PreparedStatement deviceBefore,
    PreparedStatement deviceBeforeRow,
    PreparedStatement tagBefore,
    PreparedStatement tagBeforeRow) {

  static Future<ImageListStatements> prepare(CassandraClient client, String ks) {
    String device =
        "SELECT "
            + ImageRows.DEVICE_COLUMNS
            + " FROM "
            + ks
            + ".images_by_device WHERE device_id = ? AND month = ?";
    String tag =
        "SELECT "
            + ImageRows.TAG_COLUMNS
            + " FROM "
            + ks
            + ".images_by_tag WHERE tag = ? AND month = ?";
    Future<PreparedStatement> deviceMonths =
        client.prepare(
            "SELECT month FROM "
                + ks
                + ".image_months_by_device WHERE device_id = ? AND month <= ? AND month >= ?"
                + " LIMIT ?");
    Future<PreparedStatement> tagMonths =
        client.prepare(
            "SELECT month FROM "
                + ks
                + ".image_months_by_tag WHERE tag = ? AND month <= ? AND month >= ? LIMIT ?");
    Future<PreparedStatement> deviceBefore = client.prepare(device + " AND created < ? LIMIT ?");
    Future<PreparedStatement> deviceBeforeRow =
        client.prepare(device + " AND (created, image_id) < (?, ?) LIMIT ?");
    Future<PreparedStatement> tagBefore = client.prepare(tag + " AND created < ? LIMIT ?");
    Future<PreparedStatement> tagBeforeRow =
        client.prepare(tag + " AND (created, image_id) < (?, ?) LIMIT ?");
    return Future.all(
            List.of(
                deviceMonths, tagMonths, deviceBefore, deviceBeforeRow, tagBefore, tagBeforeRow))
        .map(
            all ->
                new ImageListStatements(
                    deviceMonths.result(),
                    tagMonths.result(),
                    deviceBefore.result(),
                    deviceBeforeRow.result(),
                    tagBefore.result(),
                    tagBeforeRow.result()));
  }
}
