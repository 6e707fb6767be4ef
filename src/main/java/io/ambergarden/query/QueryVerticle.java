package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.FailureCodes;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.CqlTypes;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Serves reads from the query-first tables. Device history walks the device's non-empty buckets
 * (buckets_by_device) newest first, so empty hours of the retention are never probed.
 */
public final class QueryVerticle extends VerticleBase {
  private final AmberConfig config;
  private final TimeBuckets buckets;
  private CassandraClient client;
  private PreparedStatement bucketsOfDevice;
  private PreparedStatement eventsInBucket;
  private PreparedStatement eventsSameTs;
  private PreparedStatement latestOfDevice;
  private PreparedStatement typeAll;
  private PreparedStatement typeSameTs;
  private PreparedStatement typeBefore;

  public QueryVerticle(AmberConfig config) {
    this.config = config;
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    String ks = config.cassandra().keyspace();
    String cols = "SELECT ts, event_id, device_type, status, code, metrics, tags, payload FROM " + ks;
    String typeCols = "SELECT ts, device_id, event_id, status, code, metrics, tags, payload FROM " + ks;
    return Future.all(List.of(
        client.prepare("SELECT bucket FROM " + ks + ".buckets_by_device WHERE device_id = ? AND bucket >= ?"
            + " AND bucket <= ? LIMIT ?"),
        client.prepare(cols + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts >= ? AND ts < ? LIMIT ?"),
        client.prepare(cols + ".events_by_device WHERE device_id = ? AND bucket = ? AND ts = ? AND event_id > ? LIMIT ?"),
        client.prepare(cols + ".latest_by_device WHERE device_id = ?"),
        client.prepare(typeCols + ".events_by_type WHERE device_type = ? AND bucket = ? AND salt = ? LIMIT ?"),
        client.prepare(typeCols + ".events_by_type WHERE device_type = ? AND bucket = ? AND salt = ? AND ts = ?"
            + " AND (device_id, event_id) > (?, ?) LIMIT ?"),
        client.prepare(typeCols + ".events_by_type WHERE device_type = ? AND bucket = ? AND salt = ? AND ts < ? LIMIT ?")))
        .compose(all -> {
          bucketsOfDevice = all.resultAt(0);
          eventsInBucket = all.resultAt(1);
          eventsSameTs = all.resultAt(2);
          latestOfDevice = all.resultAt(3);
          typeAll = all.resultAt(4);
          typeSameTs = all.resultAt(5);
          typeBefore = all.resultAt(6);
          return Future.all(
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_DEVICE_EVENTS, this::deviceEvents).completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_DEVICE_LATEST, this::deviceLatest).completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_TYPE_EVENTS, this::typeEvents).completion());
        });
  }

  /** The resume position an HTTP verticle put in the query, or null for the first page. */
  static Cursor.Position position(JsonObject q) {
    return Cursor.Position.fromJson(q.getJsonObject("pos"));
  }

  static JsonObject toJson(Cursor.Position p) {
    return p == null ? null : p.toJson();
  }

  /**
   * Newest first across the device's buckets (from buckets_by_device, so empty hours are never probed),
   * resuming after the cursor's row. At most maxBucketsPerPage buckets are read per page.
   */
  private void deviceEvents(Message<JsonObject> msg) {
    JsonObject q = msg.body();
    String deviceId = q.getString("deviceId");
    long from = q.getLong("from");
    long to = q.getLong("to");
    int limit = q.getInteger("limit");
    Cursor.Position pos = position(q);
    long upper = pos != null ? pos.bucket() : buckets.bucketOf(to - 1);
    int maxBuckets = config.query().maxBucketsPerPage();
    read(bucketsOfDevice.bind(deviceId, Instant.ofEpochMilli(buckets.bucketOf(from)), Instant.ofEpochMilli(upper),
        maxBuckets + 1))
        .compose(rows -> {
          List<Long> starts = rows.stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
          DevicePage page = new DevicePage(deviceId, from, to, limit, pos, starts);
          return page.next(0).map(v -> page);
        })
        .onSuccess(page -> msg.reply(new JsonObject().put("items", page.items).put("next", toJson(page.nextPosition()))))
        .onFailure(err -> msg.fail(FailureCodes.UNAVAILABLE, "read failed: " + err.getMessage()));
  }

  private final class DevicePage {
    final String deviceId;
    final long from;
    final long to;
    final int limit;
    final Cursor.Position pos;
    final List<Long> starts;
    final JsonArray items = new JsonArray();
    long lastBucket;
    long lastTs;
    String lastId;
    int visited;

    DevicePage(String deviceId, long from, long to, int limit, Cursor.Position pos, List<Long> starts) {
      this.deviceId = deviceId;
      this.from = from;
      this.to = to;
      this.limit = limit;
      this.pos = pos;
      this.starts = starts;
    }

    Future<Void> next(int i) {
      if (i >= starts.size() || items.size() >= limit || visited >= config.query().maxBucketsPerPage()) {
        return Future.succeededFuture();
      }
      long bucket = starts.get(i);
      visited++;
      Future<Void> reads;
      if (pos != null && !pos.atBucketStart() && pos.bucket() == bucket) {
        // the rest of the cursor's bucket: same ts with a later event id, then older ts
        reads = (pos.ts() >= from && pos.ts() < to ? add(bucket, eventsSameTs.bind(deviceId, Instant.ofEpochMilli(bucket),
            Instant.ofEpochMilli(pos.ts()), pos.key2(), limit - items.size())) : Future.<Void>succeededFuture())
            .compose(v -> items.size() >= limit ? Future.succeededFuture()
                : add(bucket, eventsInBucket.bind(deviceId, Instant.ofEpochMilli(bucket), Instant.ofEpochMilli(from),
                    Instant.ofEpochMilli(Math.min(to, pos.ts())), limit - items.size())));
      } else {
        reads = add(bucket, eventsInBucket.bind(deviceId, Instant.ofEpochMilli(bucket), Instant.ofEpochMilli(from),
            Instant.ofEpochMilli(to), limit - items.size()));
      }
      return reads.compose(v -> next(i + 1));
    }

    Future<Void> add(long bucket, Statement<?> s) {
      return read(s).map(rows -> {
        for (Row r : rows) {
          items.add(QueryVerticle.toJson(deviceId, r));
          lastBucket = bucket;
          lastTs = r.getInstant(0).toEpochMilli();
          lastId = r.getString(1);
        }
        return null;
      });
    }

    Cursor.Position nextPosition() {
      if (items.size() >= limit) {
        return new Cursor.Position(lastBucket, lastTs, deviceId, lastId);
      }
      // stopped on the bucket budget with buckets left: resume at the next one
      return visited < starts.size() ? Cursor.Position.bucketStart(starts.get(visited)) : null;
    }
  }

  /**
   * Recent events of a device type, newest first: per bucket, the salt partitions are read in parallel and
   * merged. Walks back from now at most maxBucketsPerPage buckets per page, and never past the retention.
   */
  private void typeEvents(Message<JsonObject> msg) {
    JsonObject q = msg.body();
    String type = q.getString("deviceType");
    int limit = q.getInteger("limit");
    long now = System.currentTimeMillis();
    long from = Math.max(now - config.events().retention().toMillis(), q.getLong("from", Long.MIN_VALUE));
    long oldest = buckets.bucketOf(from);
    Cursor.Position pos = position(q);
    long first = pos != null ? pos.bucket() : buckets.bucketOf(now + config.events().futureSkew().toMillis());
    JsonArray items = new JsonArray();
    typeBuckets(type, first, oldest, from, limit, pos, items, 0)
        .onSuccess(next -> msg.reply(new JsonObject().put("items", items).put("next", toJson(next))))
        .onFailure(err -> msg.fail(FailureCodes.UNAVAILABLE, "read failed: " + err.getMessage()));
  }

  private Future<Cursor.Position> typeBuckets(String type, long bucket, long oldest, long from, int limit,
                                              Cursor.Position pos, JsonArray items, int visited) {
    if (bucket < oldest) {
      return Future.succeededFuture(null);
    }
    if (visited >= config.query().maxBucketsPerPage()) {
      return Future.succeededFuture(Cursor.Position.bucketStart(bucket));
    }
    int want = limit - items.size();
    boolean inCursorBucket = pos != null && !pos.atBucketStart() && pos.bucket() == bucket;
    List<Future<List<Row>>> reads = new ArrayList<>();
    for (int salt = 0; salt < config.cassandra().typeSalts(); salt++) {
      Instant b = Instant.ofEpochMilli(bucket);
      if (inCursorBucket) {
        Instant t = Instant.ofEpochMilli(pos.ts());
        reads.add(read(typeSameTs.bind(type, b, salt, t, pos.key1(), pos.key2(), want)));
        reads.add(read(typeBefore.bind(type, b, salt, t, want)));
      } else {
        reads.add(read(typeAll.bind(type, b, salt, want)));
      }
    }
    return Future.all(reads).compose(v -> {
      List<Row> rows = new ArrayList<>();
      reads.forEach(f -> f.result().stream().filter(r -> r.getInstant(0).toEpochMilli() >= from).forEach(rows::add));
      rows.sort(TYPE_ORDER);
      Row last = null;
      for (Row r : rows.subList(0, Math.min(want, rows.size()))) {
        items.add(typeJson(type, r));
        last = r;
      }
      if (items.size() >= limit && last != null) {
        return Future.succeededFuture(new Cursor.Position(bucket, last.getInstant(0).toEpochMilli(), last.getString(1),
            last.getString(2)));
      }
      return typeBuckets(type, buckets.previous(bucket), oldest, from, limit, pos, items, visited + 1);
    });
  }

  /** The clustering order of events_by_type: ts DESC, device_id ASC, event_id ASC. */
  static final Comparator<Row> TYPE_ORDER = Comparator.<Row, Instant>comparing(r -> r.getInstant(0)).reversed()
      .thenComparing(r -> r.getString(1)).thenComparing(r -> r.getString(2));

  /** Columns ts, device_id, event_id, status, code, metrics, tags, payload of events_by_type. */
  static JsonObject typeJson(String type, Row r) {
    JsonObject o = new JsonObject().put("deviceId", r.getString(1)).put("ts", r.getInstant(0).toEpochMilli())
        .put("eventId", r.getString(2)).put("deviceType", type);
    putOptional(o, r, 3);
    return o;
  }

  /** status, code, metrics, tags, payload from column {@code i}. */
  static void putOptional(JsonObject o, Row r, int i) {
    if (!r.isNull(i)) {
      o.put("status", r.getString(i));
    }
    if (!r.isNull(i + 1)) {
      o.put("code", r.getInt(i + 1));
    }
    Map<String, Double> metrics = r.get(i + 2, CqlTypes.METRICS);
    if (!metrics.isEmpty()) {
      o.put("metrics", new JsonObject(new java.util.LinkedHashMap<String, Object>(metrics)));
    }
    Map<String, String> tags = r.get(i + 3, CqlTypes.TAGS);
    if (!tags.isEmpty()) {
      o.put("tags", new JsonObject(new java.util.LinkedHashMap<String, Object>(tags)));
    }
    if (!r.isNull(i + 4)) {
      o.put("payload", Json.decodeValue(r.getString(i + 4)));
    }
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
    putOptional(o, r, 3);
    return o;
  }
}
