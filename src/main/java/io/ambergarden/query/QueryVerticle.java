package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.FailureCodes;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.write.TimeBuckets;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Serves reads from the query-first tables. Device history walks the device's non-empty buckets
 * (buckets_by_device) newest first, so empty hours of the retention are never probed.
 */
public final class QueryVerticle extends VerticleBase {
  /** Most buckets one page may visit. */
  static final int MAX_BUCKETS_PER_PAGE = 500;

  private final AmberConfig config;
  private final TimeBuckets buckets;
  private CassandraClient client;
  private PreparedStatement bucketsOfDevice;
  private PreparedStatement eventsInBucket;
  private PreparedStatement latestOfDevice;

  public QueryVerticle(AmberConfig config) {
    this.config = config;
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    String ks = config.cassandra().keyspace();
    return Future.all(
        client.prepare("SELECT bucket FROM " + ks + ".buckets_by_device WHERE device_id = ? AND bucket >= ?"
            + " AND bucket <= ? LIMIT " + MAX_BUCKETS_PER_PAGE),
        client.prepare("SELECT ts, event_id, device_type, status, code, metrics, tags, payload FROM " + ks
            + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts >= ? AND ts < ? LIMIT ?"),
        client.prepare("SELECT ts, event_id, device_type, status, code, metrics, tags, payload FROM " + ks
            + ".latest_by_device WHERE device_id = ?"))
        .compose(all -> {
          bucketsOfDevice = all.resultAt(0);
          eventsInBucket = all.resultAt(1);
          latestOfDevice = all.resultAt(2);
          return Future.all(
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_DEVICE_EVENTS, this::deviceEvents).completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_DEVICE_LATEST, this::deviceLatest).completion());
        });
  }

  private void deviceEvents(Message<JsonObject> msg) {
    JsonObject q = msg.body();
    String deviceId = q.getString("deviceId");
    long from = q.getLong("from");
    long to = q.getLong("to");
    int limit = q.getInteger("limit");
    read(bucketsOfDevice.bind(deviceId, Instant.ofEpochMilli(buckets.bucketOf(from)),
        Instant.ofEpochMilli(buckets.bucketOf(to - 1))))
        .compose(rows -> {
          List<Long> starts = rows.stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
          return collect(deviceId, starts, 0, from, to, limit, new JsonArray());
        })
        .onSuccess(items -> msg.reply(new JsonObject().put("items", items).putNull("next")))
        .onFailure(err -> msg.fail(FailureCodes.UNAVAILABLE, "read failed: " + err.getMessage()));
  }

  private Future<JsonArray> collect(String deviceId, List<Long> starts, int i, long from, long to, int limit,
                                    JsonArray out) {
    if (i >= starts.size() || out.size() >= limit) {
      return Future.succeededFuture(out);
    }
    return read(eventsInBucket.bind(deviceId, Instant.ofEpochMilli(starts.get(i)), Instant.ofEpochMilli(from),
        Instant.ofEpochMilli(to), limit - out.size()))
        .compose(rows -> {
          rows.forEach(r -> out.add(toJson(deviceId, r)));
          return collect(deviceId, starts, i + 1, from, to, limit, out);
        });
  }

  private void deviceLatest(Message<JsonObject> msg) {
    String deviceId = msg.body().getString("deviceId");
    read(latestOfDevice.bind(deviceId))
        .onSuccess(rows -> {
          if (rows.isEmpty()) {
            msg.fail(FailureCodes.NOT_FOUND, "device " + deviceId + " has no event");
          } else {
            msg.reply(toJson(deviceId, rows.get(0)));
          }
        })
        .onFailure(err -> msg.fail(FailureCodes.UNAVAILABLE, "read failed: " + err.getMessage()));
  }

  private Future<List<Row>> read(Statement<?> s) {
    return client.executeWithFullFetch(s.setExecutionProfileName(CassandraClients.READ_PROFILE).setIdempotent(true));
  }

  /** Columns ts, event_id, device_type, status, code, metrics, tags, payload → the event's JSON form. */
  static JsonObject toJson(String deviceId, Row r) {
    JsonObject o = new JsonObject().put("deviceId", deviceId).put("ts", r.getInstant(0).toEpochMilli())
        .put("eventId", r.getString(1));
    if (!r.isNull(2)) {
      o.put("deviceType", r.getString(2));
    }
    if (!r.isNull(3)) {
      o.put("status", r.getString(3));
    }
    if (!r.isNull(4)) {
      o.put("code", r.getInt(4));
    }
    Map<String, Double> metrics = r.getMap(5, String.class, Double.class);
    if (!metrics.isEmpty()) {
      o.put("metrics", new JsonObject(new java.util.LinkedHashMap<String, Object>(metrics)));
    }
    Map<String, String> tags = r.getMap(6, String.class, String.class);
    if (!tags.isEmpty()) {
      o.put("tags", new JsonObject(new java.util.LinkedHashMap<String, Object>(tags)));
    }
    if (!r.isNull(7)) {
      o.put("payload", Json.decodeValue(r.getString(7)));
    }
    return o;
  }
}
