package io.ambergarden.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which hours of an hourly series come from their rollups and which from detail rows. An hour is
 * read from its rollup when it lies wholly inside [from, to) and its rollup is up to date: it ended
 * at or before the device's rollup shard is reconciled through, and no late event reopened it
 * ({@link ExactCounts#servedExact}, the rule the exact counters follow). Every other hour (the
 * current one, those within rollup.grace, reopened ones, and the partial hours at either end) is
 * aggregated from its detail rows, so the last bucket reaches the newest stored event.
 *
 * @param rollupHours the hours read from rollups, ascending
 * @param detail the ranges read from detail rows, ascending, adjacent ones merged
 */
record SeriesPlan(List<Long> rollupHours, List<Range> detail) {
  static final long HOUR = 3_600_000L;

  /** [from, to) in epoch millis. */
  record Range(long from, long to) {
    Range {
      if (from >= to) {
        throw new IllegalArgumentException("empty range");
      }
    }
  }

  SeriesPlan {
    rollupHours = List.copyOf(rollupHours);
    detail = List.copyOf(detail);
  }

  /**
   * The plan for [from, to).
   *
   * @param reconciledThrough the device's rollup shard's reconciledThrough (null: nothing is)
   * @param reopened hours reopened by late events whose recompute has not run yet
   */
  static SeriesPlan of(long from, long to, Long reconciledThrough, Set<Long> reopened) {
    List<Long> hours = new ArrayList<>();
    List<Range> detail = new ArrayList<>();
    for (long h = Math.floorDiv(from, HOUR) * HOUR; h < to; h += HOUR) {
      boolean whole = h >= from && h + HOUR <= to;
      if (whole && ExactCounts.servedExact(h, reconciledThrough, reopened)) {
        hours.add(h);
      } else {
        add(detail, new Range(Math.max(h, from), Math.min(h + HOUR, to)));
      }
    }
    return new SeriesPlan(hours, detail);
  }

  /** Every range read from detail rows for a step under an hour: the whole of [from, to). */
  static SeriesPlan detailOnly(long from, long to) {
    return new SeriesPlan(List.of(), List.of(new Range(from, to)));
  }

  private static void add(List<Range> ranges, Range r) {
    int last = ranges.size() - 1;
    if (last >= 0 && ranges.get(last).to() == r.from()) {
      ranges.set(last, new Range(ranges.get(last).from(), r.to()));
    } else {
      ranges.add(r);
    }
  }
}
