package io.ambergarden.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A named series of (seconds since the bench started, value) points; safe to append from the
 * sampler thread.
 */
final class TimeSeries {
  record Point(double seconds, double value) {}

  private final String name;
  private final List<Point> points = new ArrayList<>();

  TimeSeries(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  synchronized void add(double seconds, double value) {
    points.add(new Point(seconds, value));
  }

  synchronized List<Point> points() {
    return List.copyOf(points);
  }

  /** Units per second between two readings of a cumulative counter; 0 for an empty interval. */
  static double rate(long previousTotal, long total, long previousNanos, long nanos) {
    return nanos <= previousNanos ? 0 : (total - previousTotal) / ((nanos - previousNanos) / 1e9);
  }
}
