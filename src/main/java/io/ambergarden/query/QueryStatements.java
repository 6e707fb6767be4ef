package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/**
 * The query verticle's CQL, prepared once at start. The keyspace is a validated config identifier.
 */
record QueryStatements(
    PreparedStatement bucketsOfDevice,
    PreparedStatement slicesOfDevice,
    PreparedStatement eventsInBucket,
    PreparedStatement eventsSameTs,
    PreparedStatement latestOfDevice,
    PreparedStatement bucketsOfType,
    PreparedStatement typeAll,
    PreparedStatement typeSameTs,
    PreparedStatement typeBefore,
    PreparedStatement fleetShard,
    PreparedStatement fleetState,
    PreparedStatement fleetDelete) {

  /** Columns of a device's events, in the order {@link StoredEvents#ofDevice} reads them. */
  static final String DEVICE_COLUMNS =
      "ts, event_id, device_type, status, code, metrics, tags, payload";

  /** Columns of a type's events, in the order {@link StoredEvents#ofType} reads them. */
  static final String TYPE_COLUMNS =
      "ts, device_id, event_id, status, code, metrics, tags, payload";

  static Future<QueryStatements> prepare(CassandraClient client, String ks) {
    String device = "SELECT " + DEVICE_COLUMNS + " FROM " + ks;
    String type =
        "SELECT "
            + TYPE_COLUMNS
            + " FROM "
            + ks
            + ".events_by_type WHERE device_type = ? AND bucket = ?"
            + " AND salt = ?";
    List<String> text =
        List.of(
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_device"
                + " WHERE device_id = ? AND bucket >= ? AND bucket <= ? LIMIT ?",
            "SELECT bucket, slice_start, salts FROM "
                + ks
                + ".device_slices WHERE device_id = ? AND bucket >= ? AND bucket <= ?",
            device
                + ".events_by_device WHERE device_id = ?"
                + " AND bucket = ? AND ts >= ? AND ts < ? LIMIT ?",
            device
                + ".events_by_device WHERE device_id = ?"
                + " AND bucket = ? AND ts = ? AND event_id > ? LIMIT ?",
            device + ".latest_by_device WHERE device_id = ?",
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_type"
                + " WHERE device_type = ? AND bucket >= ? AND bucket <= ? LIMIT ?",
            type + " LIMIT ?",
            type + " AND ts = ? AND (device_id, event_id) > (?, ?)" + " LIMIT ?",
            type + " AND ts < ? LIMIT ?",
            "SELECT device_id, ts, WRITETIME(ts) FROM "
                + ks
                + ".fleet_index WHERE facet = ? AND shard = ? AND device_id > ? LIMIT ?",
            "SELECT ts, device_type, status, code, metrics, WRITETIME(ts) FROM "
                + ks
                + ".latest_by_device WHERE device_id = ?",
            "DELETE FROM "
                + ks
                + ".fleet_index USING TIMESTAMP ? WHERE facet = ? AND shard = ? AND device_id = ?");
    List<Future<PreparedStatement>> prepared = text.stream().map(client::prepare).toList();
    return Future.all(prepared)
        .map(
            all -> {
              PreparedStatement[] p =
                  prepared.stream().map(Future::result).toArray(PreparedStatement[]::new);
              return new QueryStatements(
                  p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]);
            });
  }
}
