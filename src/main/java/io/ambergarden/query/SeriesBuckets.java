package io.ambergarden.query;

import io.ambergarden.bus.SeriesQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The buckets of one series being filled: single values from detail rows and whole hours from
 * rollups, combined exactly (counts and sums add, min of mins, max of maxes; the average is the sum
 * over the count, so it is count-weighted). Holds at most one accumulator per bucket of the range,
 * which the caller has bounded before reading.
 */
final class SeriesBuckets {
  private final long step;
  private final long from;
  private final long to;
  private final Map<Long, Accumulator> buckets = new TreeMap<>();

  /** Count, min, max and sum of the values seen in one bucket. */
  static final class Accumulator {
    long count;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum;

    void add(long n, double lo, double hi, double total) {
      count += n;
      min = Math.min(min, lo);
      max = Math.max(max, hi);
      sum += total;
    }
  }

  /** Buckets of {@code stepMillis} aligned on the epoch, for events in [from, to). */
  SeriesBuckets(long stepMillis, long from, long to) {
    if (stepMillis <= 0 || from >= to) {
      throw new IllegalArgumentException("a positive step and from < to");
    }
    this.step = stepMillis;
    this.from = from;
    this.to = to;
  }

  long bucketOf(long ts) {
    return Math.floorDiv(ts, step) * step;
  }

  /** One stored event's value; events outside [from, to) are not part of the series. */
  void addValue(long ts, double value) {
    if (ts >= from && ts < to) {
      accumulator(bucketOf(ts)).add(1, value, value, value);
    }
  }

  /**
   * One hour's rollup: {@code count} values between {@code min} and {@code max} summing to {@code
   * sum}. The hour must lie inside [from, to) and inside one bucket (the step is a whole number of
   * hours).
   */
  void addHour(long hour, long count, double min, double max, double sum) {
    if (hour < from
        || hour + SeriesPlan.HOUR > to
        || bucketOf(hour) != bucketOf(hour + SeriesPlan.HOUR - 1)) {
      throw new IllegalArgumentException("hour " + hour + " is not inside one bucket of the range");
    }
    if (count > 0) {
      accumulator(bucketOf(hour)).add(count, min, max, sum);
    }
  }

  private Accumulator accumulator(long bucket) {
    return buckets.computeIfAbsent(bucket, b -> new Accumulator());
  }

  /** The buckets with at least one value, oldest first. */
  List<SeriesQuery.Point> points() {
    List<SeriesQuery.Point> out = new ArrayList<>(buckets.size());
    buckets.forEach(
        (t, a) -> out.add(new SeriesQuery.Point(t, a.count, a.min, a.max, a.sum / a.count)));
    return out;
  }
}
