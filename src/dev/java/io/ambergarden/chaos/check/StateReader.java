package io.ambergarden.chaos.check;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reads a {@link State} back: every compared table through CQL at consistency ALL (every replica
 * answers, so an acknowledged write on any one replica is seen; no hint delivery or repair needs to
 * be awaited, and a replica that is down makes the read fail and retry until the deadline), then
 * the same data through the public API of one instance. Judges nothing.
 */
public final class StateReader {
  /** One GET on the instance the checker reads through. */
  public interface Http {
    Response get(String path) throws IOException, InterruptedException;
  }

  public record Response(int status, String body) {}

  private static final int PAGE = 1000;

  private final CqlSession session;
  private final String keyspace;
  private final Http http;
  private final Duration deadline;

  public StateReader(CqlSession session, String keyspace, Http http, Duration deadline) {
    this.session = session;
    this.keyspace = keyspace;
    this.http = http;
    this.deadline = deadline;
  }

  /**
   * Reads everything; {@code devices}, {@code types} and {@code statuses} are the ones the API is
   * asked about (the tables are read whole), {@code from}/{@code to} the event-time range of the
   * run.
   */
  public State read(
      Collection<String> devices,
      Collection<String> types,
      Collection<String> statuses,
      long from,
      long to,
      long settledAt,
      long reconciledBefore)
      throws IOException, InterruptedException {
    List<State.Row> byDevice =
        scan(
            "SELECT device_id, ts, event_id, device_type, status, code, metrics, tags, payload"
                + " FROM %s.events_by_device",
            r -> event(r, r.getString("device_type")));
    // a slim index since schema 7: its rows hold the keys only (StateChecker.keysOf)
    List<State.Row> byType =
        scan(
            "SELECT device_type, ts, device_id, event_id FROM %s.events_by_type",
            r ->
                new State.Row(
                    r.getString("device_id"),
                    millis(r, "ts"),
                    r.getString("event_id"),
                    r.getString("device_type"),
                    null,
                    null,
                    null,
                    null,
                    null));
    Map<String, State.Row> latest = new TreeMap<>();
    scan(
            "SELECT device_id, ts, event_id, device_type, status, code, metrics, tags, payload"
                + " FROM %s.latest_by_device",
            r -> event(r, r.getString("device_type")))
        .forEach(r -> latest.put(r.deviceId(), r));
    List<State.AbnormalRow> abnormal =
        scan(
            "SELECT hour, code, device_id, last_ts, status FROM %s.abnormal_devices_by_hour",
            r ->
                new State.AbnormalRow(
                    millis(r, "hour"),
                    r.getInt("code"),
                    r.getString("device_id"),
                    millis(r, "last_ts"),
                    r.getString("status")));
    List<State.FleetRow> fleet =
        scan(
            "SELECT facet, device_id, ts FROM %s.fleet_index",
            r ->
                new State.FleetRow(
                    r.getString("facet"), r.getString("device_id"), millis(r, "ts")));
    List<State.HourRow> devicesByHour =
        scan(
            "SELECT hour, device_id, last_ts FROM %s.devices_by_hour",
            r ->
                new State.HourRow(
                    millis(r, "hour"), r.getString("device_id"), millis(r, "last_ts")));
    List<State.RollupRow> rollups =
        scan(
            "SELECT device_id, hour, metric, count, min, max, sum FROM %s.rollups_by_device",
            r ->
                new State.RollupRow(
                    r.getString("device_id"),
                    millis(r, "hour"),
                    r.getString("metric"),
                    r.getLong("count"),
                    r.getDouble("min"),
                    r.getDouble("max"),
                    r.getDouble("sum")));
    List<State.ExactRow> deviceExact =
        scan(
            "SELECT device_id, hour, name, events FROM %s.device_exact_counts",
            r ->
                new State.ExactRow(
                    r.getString("device_id"),
                    millis(r, "hour"),
                    r.getString("name"),
                    r.getLong("events")));
    Map<String, State.DimensionRow> dims = new TreeMap<>();
    for (State.DimensionRow d :
        scan(
            "SELECT hour, dimension, value, events FROM %s.status_exact_by_hour",
            r ->
                new State.DimensionRow(
                    millis(r, "hour"),
                    r.getString("dimension"),
                    r.getString("value"),
                    r.getLong("events")))) {
      dims.merge(
          d.hour() + "/" + d.dimension() + "/" + d.value(),
          d,
          (a, b) ->
              new State.DimensionRow(a.hour(), a.dimension(), a.value(), a.events() + b.events()));
    }
    return new State(
        byDevice,
        byType,
        latest,
        abnormal,
        fleet,
        devicesByHour,
        rollups,
        deviceExact,
        List.copyOf(dims.values()),
        api(devices, types, statuses, from, to),
        settledAt,
        reconciledBefore);
  }

  /** Every row of a table at ALL, retried (the whole scan) until the deadline. */
  private <T> List<T> scan(String cql, Function<Row, T> map) throws InterruptedException {
    SimpleStatement s =
        SimpleStatement.newInstance(cql.formatted(keyspace))
            .setConsistencyLevel(ConsistencyLevel.ALL)
            .setPageSize(5000)
            .setTimeout(Duration.ofSeconds(30));
    long end = System.currentTimeMillis() + deadline.toMillis();
    while (true) {
      try {
        List<T> out = new ArrayList<>();
        for (Row r : session.execute(s)) {
          out.add(map.apply(r));
        }
        return out;
      } catch (DriverException e) {
        if (System.currentTimeMillis() > end) {
          throw e;
        }
        // a replica not back yet: ALL needs every one; polled with the deadline
        TimeUnit.SECONDS.sleep(2);
      }
    }
  }

  private static long millis(Row r, String column) {
    Instant i = r.getInstant(column);
    return i == null ? Long.MIN_VALUE : i.toEpochMilli();
  }

  private static State.Row event(Row r, String deviceType) {
    return new State.Row(
        r.getString("device_id"),
        millis(r, "ts"),
        r.getString("event_id"),
        deviceType,
        r.getString("status"),
        r.isNull("code") ? null : r.getInt("code"),
        r.getMap("metrics", String.class, Double.class),
        r.getMap("tags", String.class, String.class),
        r.getString("payload"));
  }

  private State.Api api(
      Collection<String> devices,
      Collection<String> types,
      Collection<String> statuses,
      long from,
      long to)
      throws IOException, InterruptedException {
    Map<String, List<State.Row>> events = new TreeMap<>();
    Map<String, State.Row> latest = new TreeMap<>();
    Map<String, State.DeviceCounters> counters = new TreeMap<>();
    List<State.ServedRollup> rollups = new ArrayList<>();
    for (String d : devices) {
      events.put(
          d,
          pages(
              "/api/v1/devices/" + d + "/events?from=" + from + "&to=" + to + "&limit=" + PAGE,
              StateReader::event));
      Response l = http.get("/api/v1/devices/" + d + "/latest");
      if (l.status() == 200) {
        latest.put(d, event(new JsonObject(l.body())));
      } else if (l.status() != 404) {
        throw new IllegalStateException("latest of " + d + " answered " + l.status());
      }
      JsonObject c = json("/api/v1/devices/" + d + "/counters");
      counters.put(
          d,
          new State.DeviceCounters(
              c.getLong("total", 0L),
              longs(c.getJsonObject("byStatus")),
              c.getLong("exactThrough"),
              c.getLong("countedThrough")));
      long fromHour = Math.floorDiv(from, StateChecker.HOUR) * StateChecker.HOUR;
      for (Object o :
          json("/api/v1/devices/"
                  + d
                  + "/rollups?from="
                  + fromHour
                  + "&to="
                  + (to + StateChecker.HOUR))
              .getJsonArray("items")) {
        JsonObject item = (JsonObject) o;
        JsonObject m = item.getJsonObject("metrics");
        JsonObject t = m == null ? null : m.getJsonObject("temperature");
        if (t != null) {
          rollups.add(
              new State.ServedRollup(
                  d,
                  item.getLong("hour"),
                  t.getLong("count"),
                  t.getDouble("min"),
                  t.getDouble("max"),
                  t.getDouble("avg")));
        }
      }
    }
    LocalDate first = StateChecker.dayOf(from);
    LocalDate last = StateChecker.dayOf(to);
    JsonObject stats = json("/api/v1/stats/status?from=" + first + "&to=" + last.plusDays(1));
    Long countedThrough = stats.getLong("countedThrough");
    List<State.DayStats> days = new ArrayList<>();
    for (Object o : stats.getJsonArray("days")) {
      JsonObject d = (JsonObject) o;
      days.add(
          new State.DayStats(
              d.getString("day"),
              d.getLong("total", 0L),
              longs(d.getJsonObject("byCode")),
              longs(d.getJsonObject("byStatus")),
              longs(d.getJsonObject("byType")),
              d.getLong("exactThrough"),
              countedThrough));
    }
    List<State.FleetItem> fleet =
        pages(
            "/api/v1/devices?limit=" + PAGE,
            o ->
                new State.FleetItem(
                    o.getString("deviceId"),
                    o.getString("deviceType"),
                    o.getLong("lastSeen"),
                    o.getString("status"),
                    o.getInteger("code"),
                    doubles(o.getJsonObject("metrics")),
                    o.getBoolean("abnormal", false)));
    Map<String, List<State.Row>> byType = new TreeMap<>();
    Map<String, List<String>> fleetFiltered = new TreeMap<>();
    for (String t : new TreeSet<>(types)) {
      byType.put(
          t, pages("/api/v1/device-types/" + t + "/events?limit=" + PAGE, StateReader::event));
      fleetFiltered.put("type=" + t, fleetIds("type=" + t));
    }
    for (String s : new TreeSet<>(statuses)) {
      fleetFiltered.put("status=" + s, fleetIds("status=" + s));
    }
    fleetFiltered.put("abnormal=true", fleetIds("abnormal=true"));
    fleetFiltered.put("abnormal=false", fleetIds("abnormal=false"));
    return new State.Api(events, latest, counters, days, rollups, fleet, byType, fleetFiltered);
  }

  private List<String> fleetIds(String filter) throws IOException, InterruptedException {
    return pages("/api/v1/devices?" + filter + "&limit=" + PAGE, o -> o.getString("deviceId"));
  }

  private <T> List<T> pages(String path, Function<JsonObject, T> map)
      throws IOException, InterruptedException {
    List<T> out = new ArrayList<>();
    String cursor = null;
    do {
      JsonObject page =
          json(
              path
                  + (cursor == null
                      ? ""
                      : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
      for (Object o : page.getJsonArray("items", new JsonArray())) {
        out.add(map.apply((JsonObject) o));
      }
      cursor = page.getString("next");
    } while (cursor != null);
    return out;
  }

  /** An event as the API serves it; the payload is embedded JSON, kept as its text. */
  static State.Row event(JsonObject o) {
    Object payload = o.getValue("payload");
    return new State.Row(
        o.getString("deviceId"),
        o.getLong("ts"),
        o.getString("eventId"),
        o.getString("deviceType"),
        o.getString("status"),
        o.getInteger("code"),
        doubles(o.getJsonObject("metrics")),
        strings(o.getJsonObject("tags")),
        payload == null ? null : Json.encode(payload));
  }

  private static Map<String, Double> doubles(JsonObject o) {
    Map<String, Double> m = new HashMap<>();
    if (o != null) {
      o.forEach(e -> m.put(e.getKey(), ((Number) e.getValue()).doubleValue()));
    }
    return m;
  }

  private static Map<String, String> strings(JsonObject o) {
    Map<String, String> m = new HashMap<>();
    if (o != null) {
      o.forEach(e -> m.put(e.getKey(), String.valueOf(e.getValue())));
    }
    return m;
  }

  private static Map<String, Long> longs(JsonObject o) {
    Map<String, Long> m = new HashMap<>();
    if (o != null) {
      o.forEach(e -> m.put(e.getKey(), ((Number) e.getValue()).longValue()));
    }
    return m;
  }

  private JsonObject json(String path) throws IOException, InterruptedException {
    Response r = http.get(path);
    if (r.status() != 200) {
      throw new IllegalStateException("GET " + path + " answered " + r.status() + ": " + r.body());
    }
    return new JsonObject(r.body());
  }
}
