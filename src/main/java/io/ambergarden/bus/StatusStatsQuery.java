package io.ambergarden.bus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Event counts of UTC days by code, status and device type, summed over the count shards: one entry
 * per day of [from, to), plus their totals, with how far each day is exact and how far the counted
 * backlog reaches.
 */
public final class StatusStatsQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.status-stats", Request.class, Reply.class);

  /** Days from {@code from} (inclusive) to {@code to} (exclusive). */
  public record Request(LocalDate from, LocalDate to) {
    public static Request day(LocalDate day) {
      return new Request(day, day.plusDays(1));
    }
  }

  /** Counts of one day (or of several, for the totals); maps keyed by the value as text. */
  public record Counts(
      long total, Map<String, Long> byCode, Map<String, Long> byStatus, Map<String, Long> byType) {
    public Counts {
      byCode = Map.copyOf(byCode);
      byStatus = Map.copyOf(byStatus);
      byType = Map.copyOf(byType);
    }

    /** The sum of several days' counts. */
    public static Counts sum(List<Counts> all) {
      long total = 0;
      Map<String, Long> code = new TreeMap<>();
      Map<String, Long> status = new TreeMap<>();
      Map<String, Long> type = new TreeMap<>();
      for (Counts c : all) {
        total += c.total;
        c.byCode.forEach((k, v) -> code.merge(k, v, Long::sum));
        c.byStatus.forEach((k, v) -> status.merge(k, v, Long::sum));
        c.byType.forEach((k, v) -> type.merge(k, v, Long::sum));
      }
      return new Counts(total, code, status, type);
    }

    public JsonObject toJson() {
      return new JsonObject()
          .put("total", total)
          .put("byCode", new JsonObject(new TreeMap<String, Object>(byCode)))
          .put("byStatus", new JsonObject(new TreeMap<String, Object>(byStatus)))
          .put("byType", new JsonObject(new TreeMap<String, Object>(byType)));
    }
  }

  /**
   * One day's counts; they are exact for the hours before {@code exactThrough} (epoch millis,
   * within the day: its start when no hour is, its end when all are).
   */
  public record Day(LocalDate day, Counts counts, long exactThrough) {
    public JsonObject toJson() {
      return new JsonObject()
          .put("day", day.toString())
          .put("exactThrough", exactThrough)
          .mergeIn(counts.toJson());
    }
  }

  /**
   * One entry per day of the request, oldest first. {@code countedThrough}: the acknowledgement
   * time (epoch millis) up to which every event is counted; null when a shard has not counted yet.
   */
  public record Reply(int shards, List<Day> days, Long countedThrough) {
    public Reply {
      days = List.copyOf(days);
    }

    /** The answer to {@code day=}: that one day, flat. */
    public JsonObject dayJson() {
      Day d = days.get(0);
      return new JsonObject()
          .put("day", d.day().toString())
          .put("shards", shards)
          .put("exactThrough", d.exactThrough())
          .put("countedThrough", countedThrough)
          .mergeIn(d.counts().toJson());
    }

    /** The answer to {@code from=&to=}: every day, then the totals. */
    public JsonObject rangeJson(LocalDate from, LocalDate to) {
      JsonArray out = new JsonArray();
      days.forEach(d -> out.add(d.toJson()));
      return new JsonObject()
          .put("from", from.toString())
          .put("to", to.toString())
          .put("shards", shards)
          .put("countedThrough", countedThrough)
          .put("days", out)
          .put("totals", Counts.sum(days.stream().map(Day::counts).toList()).toJson());
    }
  }

  private StatusStatsQuery() {}
}
