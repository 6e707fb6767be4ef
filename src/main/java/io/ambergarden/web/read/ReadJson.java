package io.ambergarden.web.read;

import io.ambergarden.bus.AbnormalQuery;
import io.ambergarden.bus.ActivityQuery;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.FleetQuery;
import io.ambergarden.bus.RollupsQuery;
import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.bus.StatusStatsQuery;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The API's JSON for the non-event reads, rendered from the query verticles' typed replies. Maps
 * are written in key order, so an answer's bytes do not depend on a hash order.
 */
final class ReadJson {
  private ReadJson() {}

  static JsonObject counters(DeviceCountersQuery.Reply r) {
    return new JsonObject()
        .put("deviceId", r.deviceId())
        .put("total", r.total())
        .put("byStatus", sorted(r.byStatus()))
        .put("exactThrough", r.exactThrough())
        .put("countedThrough", r.countedThrough());
  }

  static JsonObject activity(ActivityQuery.Reply r) {
    return new JsonObject()
        .put("minutes", r.minutes())
        .put("from", r.from())
        .put("to", r.to())
        .put("devices", r.devices())
        .put("truncated", r.truncated());
  }

  static JsonObject rollups(RollupsQuery.Reply r) {
    JsonArray out = new JsonArray();
    for (RollupsQuery.Hour h : r.items()) {
      JsonObject metrics = new JsonObject();
      h.metrics()
          .forEach(
              (name, a) ->
                  metrics.put(
                      name,
                      new JsonObject()
                          .put("count", a.count())
                          .put("min", a.min())
                          .put("max", a.max())
                          .put("avg", a.avg())));
      out.add(new JsonObject().put("hour", h.hour()).put("metrics", metrics));
    }
    return new JsonObject()
        .put("deviceId", r.deviceId())
        .put("from", r.from())
        .put("to", r.to())
        .put("items", out);
  }

  static JsonObject series(SeriesQuery.Reply r) {
    JsonArray points = new JsonArray();
    for (SeriesQuery.Point p : r.points()) {
      points.add(
          new JsonObject()
              .put("t", p.t())
              .put("count", p.count())
              .put("min", p.min())
              .put("max", p.max())
              .put("avg", p.avg()));
    }
    return new JsonObject()
        .put("deviceId", r.deviceId())
        .put("metric", r.metric())
        .put("step", new SeriesStep(r.stepMillis()).text())
        .put("from", r.from())
        .put("to", r.to())
        .put("points", points);
  }

  static JsonObject abnormal(AbnormalQuery.Reply r) {
    JsonArray codes = new JsonArray();
    r.byCode()
        .forEach(
            c ->
                codes.add(
                    new JsonObject()
                        .put("code", c.code())
                        .put("devices", c.devices())
                        .put("deviceIds", new JsonArray(List.copyOf(c.deviceIds())))));
    return new JsonObject()
        .put("minutes", r.minutes())
        .put("from", r.from())
        .put("to", r.to())
        .put("devices", r.devices())
        .put("byCode", codes)
        .put("truncated", r.truncated());
  }

  /** The fleet page's items; the caller adds the cursor. */
  static JsonArray fleetItems(FleetQuery.Reply page) {
    JsonArray out = new JsonArray();
    for (FleetQuery.Device d : page.items()) {
      out.add(
          new JsonObject()
              .put("deviceId", d.deviceId())
              .put("deviceType", d.deviceType())
              .put("lastSeen", d.lastSeen())
              .put("status", d.status())
              .put("code", d.code())
              .put("metrics", sorted(d.metrics()))
              .put("abnormal", d.abnormal()));
    }
    return out;
  }

  /** The answer to {@code day=}: that one day, flat. */
  static JsonObject statusDay(StatusStatsQuery.Reply r) {
    StatusStatsQuery.Day d = r.days().get(0);
    return new JsonObject()
        .put("day", d.day().toString())
        .put("shards", r.shards())
        .put("exactThrough", d.exactThrough())
        .put("countedThrough", r.countedThrough())
        .mergeIn(counts(d.counts()));
  }

  /** The answer to {@code from=&to=}: every day, then the totals. */
  static JsonObject statusRange(StatusStatsQuery.Reply r, LocalDate from, LocalDate to) {
    JsonArray out = new JsonArray();
    for (StatusStatsQuery.Day d : r.days()) {
      out.add(
          new JsonObject()
              .put("day", d.day().toString())
              .put("exactThrough", d.exactThrough())
              .mergeIn(counts(d.counts())));
    }
    return new JsonObject()
        .put("from", from.toString())
        .put("to", to.toString())
        .put("shards", r.shards())
        .put("countedThrough", r.countedThrough())
        .put("days", out)
        .put(
            "totals",
            counts(
                StatusStatsQuery.Counts.sum(
                    r.days().stream().map(StatusStatsQuery.Day::counts).toList())));
  }

  private static JsonObject counts(StatusStatsQuery.Counts c) {
    return new JsonObject()
        .put("total", c.total())
        .put("byCode", sorted(c.byCode()))
        .put("byStatus", sorted(c.byStatus()))
        .put("byType", sorted(c.byType()));
  }

  private static JsonObject sorted(Map<String, ?> m) {
    return new JsonObject(new TreeMap<String, Object>(m));
  }
}
