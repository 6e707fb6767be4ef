package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The image list verticle's CQL, prepared once at start. Keyset reads: rows strictly before the
 * last one seen, as a tuple on the clustering columns (seed 003, 4.2), never an offset.
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
    List<String> cql =
        List.of(
            "SELECT month FROM "
                + ks
                + ".image_months_by_device WHERE device_id = ? AND month <= ? AND month >= ?"
                + " LIMIT ?",
            "SELECT month FROM "
                + ks
                + ".image_months_by_tag WHERE tag = ? AND month <= ? AND month >= ? LIMIT ?",
            device + " AND created < ? LIMIT ?",
            device + " AND (created, image_id) < (?, ?) LIMIT ?",
            tag + " AND created < ? LIMIT ?",
            tag + " AND (created, image_id) < (?, ?) LIMIT ?");
    List<Future<PreparedStatement>> prepared = new ArrayList<>();
    cql.forEach(s -> prepared.add(client.prepare(s)));
    return Future.all(prepared)
        .map(
            all ->
                new ImageListStatements(
                    prepared.get(0).result(),
                    prepared.get(1).result(),
                    prepared.get(2).result(),
                    prepared.get(3).result(),
                    prepared.get(4).result(),
                    prepared.get(5).result()));
  }
}
