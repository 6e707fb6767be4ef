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
    PreparedStatement bucketsOfDeviceAsc,
    PreparedStatement slicesOfDevice,
    PreparedStatement eventsInBucket,
    PreparedStatement eventsSameTs,
    PreparedStatement eventsInBucketAsc,
    PreparedStatement eventsSameTsAsc,
    PreparedStatement latestOfDevice,
    PreparedStatement bucketsOfType,
    PreparedStatement typeAll,
    PreparedStatement typeSameTs,
    PreparedStatement typeBefore,
    PreparedStatement eventByKey,
    PreparedStatement fleetShard,
    PreparedStatement fleetState,
    PreparedStatement fleetDelete) {

  /** Columns of a device's events, in the order {@link StoredEvents#ofDevice} reads them. */
  static final String DEVICE_COLUMNS =
      "ts, event_id, device_type, status, code, metrics, tags, payload";

  /**
   * Columns of a type's index rows, in the order {@link StoredEvents#indexEntry} reads them: the
   * keys only; the events are read from events_by_device ({@code eventByKey}).
   */
  static final String TYPE_COLUMNS = "ts, device_id, event_id, detail_bucket";

  static Future<QueryStatements> prepare(CassandraClient client, String ks) {
    String device = "SELECT " + DEVICE_COLUMNS + " FROM " + ks;
    String type =
        "SELECT "
            + TYPE_COLUMNS
            + " FROM "
            + ks
            + ".events_by_type WHERE device_type = ? AND bucket = ?"
            + " AND salt = ?";
    Future<PreparedStatement> bucketsOfDevice =
        client.prepare(
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_device"
                + " WHERE device_id = ? AND bucket >= ? AND bucket <= ? LIMIT ?");
    // an export's walk, oldest first: the exact reverse of each table's clustering order
    Future<PreparedStatement> bucketsOfDeviceAsc =
        client.prepare(
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_device"
                + " WHERE device_id = ? AND bucket >= ? AND bucket <= ? ORDER BY bucket ASC LIMIT ?");
    Future<PreparedStatement> eventsInBucketAsc =
        client.prepare(
            device
                + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts >= ? AND ts < ?"
                + " ORDER BY ts ASC, event_id DESC LIMIT ?");
    Future<PreparedStatement> eventsSameTsAsc =
        client.prepare(
            device
                + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts = ? AND event_id < ?"
                + " ORDER BY ts ASC, event_id DESC LIMIT ?");
    Future<PreparedStatement> slicesOfDevice =
        client.prepare(
            "SELECT bucket, slice_start, salts FROM "
                + ks
                + ".device_slices WHERE device_id = ? AND bucket >= ? AND bucket <= ?");
    Future<PreparedStatement> eventsInBucket =
        client.prepare(
            device
                + ".events_by_device WHERE device_id = ?"
                + " AND bucket = ? AND ts >= ? AND ts < ? LIMIT ?");
    Future<PreparedStatement> eventsSameTs =
        client.prepare(
            device
                + ".events_by_device WHERE device_id = ?"
                + " AND bucket = ? AND ts = ? AND event_id > ? LIMIT ?");
    Future<PreparedStatement> latestOfDevice =
        client.prepare(device + ".latest_by_device WHERE device_id = ?");
    Future<PreparedStatement> bucketsOfType =
        client.prepare(
            "SELECT bucket FROM "
                + ks
                + ".buckets_by_type"
                + " WHERE device_type = ? AND bucket >= ? AND bucket <= ? LIMIT ?");
    Future<PreparedStatement> typeAll = client.prepare(type + " LIMIT ?");
    Future<PreparedStatement> typeSameTs =
        client.prepare(type + " AND ts = ? AND (device_id, event_id) > (?, ?)" + " LIMIT ?");
    Future<PreparedStatement> typeBefore = client.prepare(type + " AND ts < ? LIMIT ?");
    Future<PreparedStatement> eventByKey =
        client.prepare(
            device
                + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts = ? AND event_id = ?");
    Future<PreparedStatement> fleetShard =
        client.prepare(
            "SELECT device_id, ts, WRITETIME(ts) FROM "
                + ks
                + ".fleet_index WHERE facet = ? AND shard = ? AND device_id > ? LIMIT ?");
    Future<PreparedStatement> fleetState =
        client.prepare(
            "SELECT ts, device_type, status, code, metrics, WRITETIME(ts) FROM "
                + ks
                + ".latest_by_device WHERE device_id = ?");
    Future<PreparedStatement> fleetDelete =
        client.prepare(
            "DELETE FROM "
                + ks
                + ".fleet_index USING TIMESTAMP ? WHERE facet = ? AND shard = ? AND device_id = ?");
    return Future.all(
            List.of(
                bucketsOfDevice,
                bucketsOfDeviceAsc,
                slicesOfDevice,
                eventsInBucket,
                eventsSameTs,
                eventsInBucketAsc,
                eventsSameTsAsc,
                latestOfDevice,
                bucketsOfType,
                typeAll,
                typeSameTs,
                typeBefore,
                eventByKey,
                fleetShard,
                fleetState,
                fleetDelete))
        .map(
            all ->
                new QueryStatements(
                    bucketsOfDevice.result(),
                    bucketsOfDeviceAsc.result(),
                    slicesOfDevice.result(),
                    eventsInBucket.result(),
                    eventsSameTs.result(),
                    eventsInBucketAsc.result(),
                    eventsSameTsAsc.result(),
                    latestOfDevice.result(),
                    bucketsOfType.result(),
                    typeAll.result(),
                    typeSameTs.result(),
                    typeBefore.result(),
                    eventByKey.result(),
                    fleetShard.result(),
                    fleetState.result(),
                    fleetDelete.result()));
  }
}
