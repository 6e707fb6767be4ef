package io.ambergarden.query;

import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.counter.CounterCells;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How far counts are exact, and the counts a read combines from the exact rows of reconciled hours
 * and the approximate counters of the others.
 *
 * <p>A shard's hours are reconciled up to its reconciledThrough (E): the latest hour boundary e
 * with e + rollup.grace before the shard's done_until. An hour is served from its exact rows when
 * it ends at or before E and is not reopened by a late event; every other hour from its approximate
 * counters. Exact rows of hours beyond E (a recompute that wrote them before done_until moved) and
 * approximate rows of exact hours are ignored, so no hour is counted twice or from both sources. A
 * null E means nothing of the shard is known to be reconciled.
 */
public final class ExactCounts {
  private ExactCounts() {}

  /** One row of a device's hourly counts: a name ('status:&lt;s&gt;' or 'none') of one hour. */
  public record HourCount(long hour, String name, long events) {}

  /** One row of a shard's hourly day stats: a (dimension, value) of one hour. */
  public record DimensionCount(long hour, String dimension, String value, long events) {}

  /**
   * What the count shards' progress rows say: each shard's reconciledThrough (absent when unknown)
   * and the acknowledgement time up to which every event is counted (null when any shard has none).
   */
  public record Progress(Map<Integer, Long> reconciledThrough, Long countedThrough) {
    public Progress {
      reconciledThrough = Map.copyOf(reconciledThrough);
    }

    /** The shard's reconciledThrough, or null when it has no progress yet. */
    public Long reconciledThrough(int shard) {
      return reconciledThrough.get(shard);
    }
  }

  /**
   * The progress of {@code shards} count shards from their rows' values (epoch millis; a missing
   * shard or a null value means none).
   */
  public static Progress progress(
      int shards, Map<Integer, Long> doneUntil, Map<Integer, Long> countedUntil, Duration grace) {
    Map<Integer, Long> reconciled = new TreeMap<>();
    for (int s = 0; s < shards; s++) {
      Long e = reconciledThrough(doneUntil.get(s), grace);
      if (e != null) {
        reconciled.put(s, e);
      }
    }
    return new Progress(reconciled, countedThrough(shards, countedUntil));
  }

  /**
   * The latest hour boundary e with e + grace &lt; doneUntil: every hour ending at or before it was
   * recomputed from its stored events. Null when doneUntil is.
   */
  public static Long reconciledThrough(Long doneUntil, Duration grace) {
    if (doneUntil == null) {
      return null;
    }
    return TimeBuckets.hourOf(doneUntil - grace.toMillis() - 1);
  }

  /** The least counted_until of shards 0..shards-1; null if any of them has none. */
  public static Long countedThrough(int shards, Map<Integer, Long> countedUntil) {
    Long least = null;
    for (int s = 0; s < shards; s++) {
      Long c = countedUntil.get(s);
      if (c == null) {
        return null;
      }
      least = least == null ? c : Math.min(least, c);
    }
    return least;
  }

  /** True when the hour's exact rows are the ones to serve. */
  public static boolean servedExact(long hour, Long reconciledThrough, Set<Long> reopened) {
    return reconciledThrough != null
        && hour + TimeBuckets.HOUR <= reconciledThrough
        && !reopened.contains(hour);
  }

  /** A device's counters, "ever", and how far they are exact. */
  public record DeviceCounts(long total, Map<String, Long> byStatus, Long exactThrough) {
    public DeviceCounts {
      byStatus = Map.copyOf(byStatus);
    }
  }

  /**
   * A device's counters from its exact rows and its approximate rows; exactThrough is the earliest
   * of E and the reopened hours (null when E is).
   */
  public static DeviceCounts device(
      Long reconciledThrough,
      Set<Long> reopened,
      Collection<HourCount> exact,
      Collection<HourCount> approx) {
    Map<String, Long> byName = new TreeMap<>();
    for (HourCount c : exact) {
      if (servedExact(c.hour(), reconciledThrough, reopened)) {
        byName.merge(c.name(), c.events(), Long::sum);
      }
    }
    for (HourCount c : approx) {
      if (!servedExact(c.hour(), reconciledThrough, reopened)) {
        byName.merge(c.name(), c.events(), Long::sum);
      }
    }
    long total = 0;
    Map<String, Long> byStatus = new TreeMap<>();
    for (Map.Entry<String, Long> e : byName.entrySet()) {
      total += e.getValue();
      if (e.getKey().startsWith(CounterCells.STATUS_PREFIX)) {
        byStatus.put(e.getKey().substring(CounterCells.STATUS_PREFIX.length()), e.getValue());
      }
    }
    return new DeviceCounts(total, byStatus, earliest(reconciledThrough, reopened));
  }

  private static Long earliest(Long reconciledThrough, Set<Long> reopened) {
    if (reconciledThrough == null) {
      return null;
    }
    long out = reconciledThrough;
    for (long h : reopened) {
      out = Math.min(out, h);
    }
    return out;
  }

  /**
   * The UTC days whose approximate partitions a device read needs, oldest first: every day from the
   * day of E (all of them when E is null) and the days of the reopened hours, within [oldest,
   * newest].
   */
  public static List<LocalDate> deviceApproxDays(
      Long reconciledThrough, Set<Long> reopened, LocalDate oldest, LocalDate newest) {
    TreeSet<LocalDate> days = new TreeSet<>();
    LocalDate first =
        reconciledThrough == null ? oldest : later(oldest, TimeBuckets.utcDay(reconciledThrough));
    for (LocalDate d = first; !d.isAfter(newest); d = d.plusDays(1)) {
      days.add(d);
    }
    for (long h : reopened) {
      LocalDate d = TimeBuckets.utcDay(h);
      if (!d.isBefore(oldest) && !d.isAfter(newest)) {
        days.add(d);
      }
    }
    return new ArrayList<>(days);
  }

  private static LocalDate later(LocalDate a, LocalDate b) {
    return a.isAfter(b) ? a : b;
  }

  /** What one shard contributes to one day: its progress, reopened hours and rows. */
  public record ShardDay(
      Long reconciledThrough,
      Set<Long> reopened,
      Collection<DimensionCount> exact,
      Collection<DimensionCount> approx) {}

  /** True when some hour of the day may be served from exact rows of a shard. */
  public static boolean dayNeedsExact(LocalDate day, Long reconciledThrough) {
    return reconciledThrough != null && startOf(day) + TimeBuckets.HOUR <= reconciledThrough;
  }

  /** True when some hour of the day must be served from a shard's approximate counters. */
  public static boolean dayNeedsApprox(LocalDate day, Long reconciledThrough, Set<Long> reopened) {
    return reconciledThrough == null
        || startOf(day.plusDays(1)) > reconciledThrough
        || !reopened.isEmpty();
  }

  /**
   * A day's stats summed over its shards; exactThrough is the earliest of every shard's E and
   * reopened hours, within the day.
   */
  public static StatusStatsQuery.Day day(LocalDate day, List<ShardDay> shards) {
    long total = 0;
    Map<String, Long> byCode = new TreeMap<>();
    Map<String, Long> byStatus = new TreeMap<>();
    Map<String, Long> byType = new TreeMap<>();
    long start = startOf(day);
    long end = startOf(day.plusDays(1));
    long exactThrough = end;
    for (ShardDay s : shards) {
      List<DimensionCount> served = new ArrayList<>();
      for (DimensionCount c : s.exact()) {
        if (servedExact(c.hour(), s.reconciledThrough(), s.reopened())) {
          served.add(c);
        }
      }
      for (DimensionCount c : s.approx()) {
        if (!servedExact(c.hour(), s.reconciledThrough(), s.reopened())) {
          served.add(c);
        }
      }
      for (DimensionCount c : served) {
        switch (c.dimension()) {
          case CounterCells.ALL -> total += c.events();
          case CounterCells.CODE -> byCode.merge(c.value(), c.events(), Long::sum);
          case CounterCells.STATUS -> byStatus.merge(c.value(), c.events(), Long::sum);
          case CounterCells.TYPE -> byType.merge(c.value(), c.events(), Long::sum);
          default -> {}
        }
      }
      Long e = earliest(s.reconciledThrough(), s.reopened());
      exactThrough = Math.min(exactThrough, e == null ? start : e);
    }
    return new StatusStatsQuery.Day(
        day,
        new StatusStatsQuery.Counts(total, byCode, byStatus, byType),
        Math.max(start, exactThrough));
  }

  /** Start of a UTC day, epoch millis. */
  public static long startOf(LocalDate day) {
    return day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }
}
