package io.ambergarden.bus;

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
  }

  /**
   * One day's counts; they are exact for the hours before {@code exactThrough} (epoch millis,
   * within the day: its start when no hour is, its end when all are).
   */
  public record Day(LocalDate day, Counts counts, long exactThrough) {}

  /**
   * One entry per day of the request, oldest first. {@code countedThrough}: the acknowledgement
   * time (epoch millis) up to which every event is counted; null when a shard has not counted yet.
   */
  public record Reply(int shards, List<Day> days, Long countedThrough) {
    public Reply {
      days = List.copyOf(days);
    }
  }

  private StatusStatsQuery() {}
}
