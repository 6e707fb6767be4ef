package io.ambergarden.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Median, least and greatest of a few measurements (NaN when there are none). */
public record Spread(int n, double median, double min, double max) {

  public static Spread of(List<Double> values) {
    List<Double> sorted = new ArrayList<>();
    for (Double v : values) {
      if (v != null && !v.isNaN()) {
        sorted.add(v);
      }
    }
    if (sorted.isEmpty()) {
      return new Spread(0, Double.NaN, Double.NaN, Double.NaN);
    }
    Collections.sort(sorted);
    int n = sorted.size();
    double median =
        n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return new Spread(n, median, sorted.get(0), sorted.get(n - 1));
  }

  /** "12.3 (10.1-15.0)", one decimal. */
  public String text() {
    return n == 0 ? "-" : String.format("%.1f (%.1f-%.1f)", median, min, max);
  }
}
