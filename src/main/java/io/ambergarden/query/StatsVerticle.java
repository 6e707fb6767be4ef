package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.FailureCodes;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.counter.CounterCells;
import io.ambergarden.rollup.RollupMarks;
import io.ambergarden.write.TimeBuckets;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/** Counter, abnormal-device and rollup reads. Every read touches a bounded, computed set of partitions. */
public final class StatsVerticle extends VerticleBase {
  /** Partition reads in flight at once per query. */
  static final int READ_PARALLELISM = 16;
  /** Distinct abnormal devices remembered per query; beyond it the answer says truncated. */
  static final int MAX_ABNORMAL_DEVICES = 100_000;
  static final int DEVICE_IDS_PER_CODE = 100;

  private final AmberConfig config;
  private CassandraClient client;
  private PreparedStatement dayShard;
  private PreparedStatement deviceCounters;
  private PreparedStatement abnormalHour;
  private PreparedStatement rollupDay;

  public StatsVerticle(AmberConfig config) {
    this.config = config;
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    String ks = config.cassandra().keyspace();
    return Future.all(List.of(
            client.prepare("SELECT dimension, value, events FROM " + ks + ".status_counts_by_day WHERE day = ? AND shard = ?"),
            client.prepare("SELECT name, events FROM " + ks + ".device_counters WHERE device_id = ?"),
            client.prepare("SELECT code, device_id, last_ts FROM " + ks + ".abnormal_devices_by_hour WHERE hour = ?"
                + " AND salt = ?"),
            client.prepare("SELECT hour, metric, count, min, max, sum FROM " + ks + ".rollups_by_device"
                + " WHERE device_id = ? AND day = ? AND hour >= ? AND hour < ?")))
        .compose(all -> {
          dayShard = all.resultAt(0);
          deviceCounters = all.resultAt(1);
          abnormalHour = all.resultAt(2);
          rollupDay = all.resultAt(3);
          return Future.all(
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_STATUS_STATS, m -> answer(m, this::statusStats))
                  .completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_DEVICE_COUNTERS, m -> answer(m, this::counters))
                  .completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_ABNORMAL, m -> answer(m, this::abnormal))
                  .completion(),
              vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_ROLLUPS, m -> answer(m, this::rollups))
                  .completion());
        });
  }

  private static void answer(Message<JsonObject> msg, Function<JsonObject, Future<JsonObject>> query) {
    query.apply(msg.body()).onSuccess(msg::reply)
        .onFailure(err -> msg.fail(FailureCodes.UNAVAILABLE, "read failed: " + err.getMessage()));
  }

  /** Sums the day's shards: exactly counters.shards partition reads. */
  private Future<JsonObject> statusStats(JsonObject q) {
    LocalDate day = LocalDate.parse(q.getString("day"));
    List<Statement<?>> reads = new ArrayList<>();
    for (int s = 0; s < config.counters().shards(); s++) {
      reads.add(dayShard.bind(day, s));
    }
    return readAll(reads).map(rows -> {
      long total = 0;
      Map<String, Long> byCode = new TreeMap<>();
      Map<String, Long> byStatus = new TreeMap<>();
      for (Row r : rows) {
        long n = r.getLong(2);
        switch (r.getString(0)) {
          case CounterCells.ALL -> total += n;
          case CounterCells.CODE -> byCode.merge(r.getString(1), n, Long::sum);
          case CounterCells.STATUS -> byStatus.merge(r.getString(1), n, Long::sum);
          default -> { }
        }
      }
      return new JsonObject().put("day", day.toString()).put("shards", config.counters().shards()).put("total", total)
          .put("byCode", new JsonObject(new TreeMap<String, Object>(byCode)))
          .put("byStatus", new JsonObject(new TreeMap<String, Object>(byStatus)));
    });
  }

  private Future<JsonObject> counters(JsonObject q) {
    String deviceId = q.getString("deviceId");
    return readAll(List.of(deviceCounters.bind(deviceId))).map(rows -> {
      long total = 0;
      Map<String, Object> byStatus = new TreeMap<>();
      for (Row r : rows) {
        String name = r.getString(0);
        total += r.getLong(1);
        if (name.startsWith(CounterCells.STATUS_PREFIX)) {
          byStatus.put(name.substring(CounterCells.STATUS_PREFIX.length()), r.getLong(1));
        }
      }
      return new JsonObject().put("deviceId", deviceId).put("total", total).put("byStatus", new JsonObject(byStatus));
    });
  }

  /** Distinct abnormal devices by code in [now - minutes, now]: hours x salts partition reads, never detail. */
  private Future<JsonObject> abnormal(JsonObject q) {
    int minutes = q.getInteger("minutes");
    long now = System.currentTimeMillis();
    long from = now - minutes * 60_000L;
    List<Statement<?>> reads = new ArrayList<>();
    for (long h = TimeBuckets.hourOf(from); h <= TimeBuckets.hourOf(now); h += RollupMarks.HOUR) {
      for (int s = 0; s < config.cassandra().abnormalSalts(); s++) {
        reads.add(abnormalHour.bind(Instant.ofEpochMilli(h), s));
      }
    }
    return readAll(reads).map(rows -> {
      Map<Integer, Set<String>> byCode = new TreeMap<>();
      int remembered = 0;
      boolean truncated = false;
      for (Row r : rows) {
        if (r.getInstant(2).toEpochMilli() < from) {
          continue;
        }
        Set<String> devices = byCode.computeIfAbsent(r.getInt(0), k -> new TreeSet<>());
        if (devices.contains(r.getString(1))) {
          continue;
        }
        if (remembered >= MAX_ABNORMAL_DEVICES) {
          truncated = true;
          continue;
        }
        devices.add(r.getString(1));
        remembered++;
      }
      JsonArray codes = new JsonArray();
      Set<String> all = new TreeSet<>();
      byCode.forEach((code, devices) -> {
        all.addAll(devices);
        codes.add(new JsonObject().put("code", code < 0 ? null : code).put("devices", devices.size())
            .put("deviceIds", new JsonArray(devices.stream().limit(DEVICE_IDS_PER_CODE).map(d -> (Object) d).toList())));
      });
      return new JsonObject().put("minutes", minutes).put("from", from).put("to", now).put("devices", all.size())
          .put("byCode", codes).put("truncated", truncated);
    });
  }

  /** Hourly aggregates in [from, to), oldest first; one partition read per UTC day. */
  private Future<JsonObject> rollups(JsonObject q) {
    String deviceId = q.getString("deviceId");
    long from = q.getLong("from");
    long to = q.getLong("to");
    List<Statement<?>> reads = new ArrayList<>();
    for (LocalDate d = CounterCells.utcDay(from); !d.isAfter(CounterCells.utcDay(to - 1)); d = d.plusDays(1)) {
      reads.add(rollupDay.bind(deviceId, d, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to)));
    }
    return readAll(reads).map(rows -> {
      Map<Long, JsonObject> byHour = new TreeMap<>();
      for (Row r : rows) {
        long count = r.getLong(2);
        byHour.computeIfAbsent(r.getInstant(0).toEpochMilli(), h -> new JsonObject()).put(r.getString(1),
            new JsonObject().put("count", count).put("min", r.getDouble(3)).put("max", r.getDouble(4))
                .put("avg", r.getDouble(5) / count));
      }
      JsonArray items = new JsonArray();
      byHour.forEach((hour, metrics) -> items.add(new JsonObject().put("hour", hour).put("metrics", metrics)));
      return new JsonObject().put("deviceId", deviceId).put("from", from).put("to", to).put("items", items);
    });
  }

  /** Runs the reads READ_PARALLELISM at a time, in order; rows of all of them. */
  private Future<List<Row>> readAll(List<Statement<?>> reads) {
    return readFrom(reads, 0, new ArrayList<>());
  }

  private Future<List<Row>> readFrom(List<Statement<?>> reads, int from, List<Row> out) {
    if (from >= reads.size()) {
      return Future.succeededFuture(out);
    }
    int to = Math.min(reads.size(), from + READ_PARALLELISM);
    List<Future<List<Row>>> group = new ArrayList<>();
    for (Statement<?> s : reads.subList(from, to)) {
      group.add(client.executeWithFullFetch(s.setIdempotent(true).setExecutionProfileName(CassandraClients.READ_PROFILE)));
    }
    return Future.all(group).compose(v -> {
      group.forEach(f -> out.addAll(f.result()));
      return readFrom(reads, to, out);
    });
  }
}
