package io.ambergarden.metrics;

import java.util.NavigableMap;
import java.util.TreeMap;

/** Reads values out of a Prometheus text scrape, for tests and the benchmark. */
public final class PrometheusText {
  private PrometheusText() {}

  /** The sum of every sample of the meter, over all label sets; 0 when absent. */
  public static double sum(String scrape, String name) {
    return sum(scrape, name, "");
  }

  /**
   * As {@link #sum(String, String)}, over the samples whose line contains {@code labelText}, such
   * as area="heap".
   */
  public static double sum(String scrape, String name, String labelText) {
    double sum = 0;
    for (String line : scrape.split("\n")) {
      if ((line.startsWith(name + " ") || line.startsWith(name + "{"))
          && line.contains(labelText)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * The cumulative counts of a histogram's buckets (upper bound "le" to count, +Inf last) over the
   * samples of {@code name}_bucket whose line contains {@code labelText}.
   */
  public static NavigableMap<Double, Double> buckets(String scrape, String name, String labelText) {
    NavigableMap<Double, Double> out = new TreeMap<>();
    String prefix = name + "_bucket{";
    for (String line : scrape.split("\n")) {
      if (line.startsWith(prefix) && line.contains(labelText)) {
        int le = line.indexOf("le=\"") + 4;
        String bound = line.substring(le, line.indexOf('"', le));
        double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
        out.merge(
            upper, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
      }
    }
    return out;
  }

  /**
   * The {@code q} quantile of what a histogram recorded between two scrapes' buckets, interpolated
   * linearly inside its bucket as Prometheus's histogram_quantile does; NaN when nothing was
   * recorded, the highest finite bound when the quantile falls in +Inf.
   */
  public static double quantileBetween(
      NavigableMap<Double, Double> before, NavigableMap<Double, Double> after, double q) {
    if (after.isEmpty()) {
      return Double.NaN;
    }
    double total = after.lastEntry().getValue() - before.getOrDefault(after.lastKey(), 0.0);
    if (total <= 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lowerBound = 0;
    double lowerCount = 0;
    for (var e : after.entrySet()) {
      double count = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
      if (count >= rank) {
        if (e.getKey().isInfinite()) {
          return lowerBound;
        }
        double inBucket = count - lowerCount;
        return inBucket <= 0
            ? e.getKey()
            : lowerBound + (e.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
      }
      lowerBound = e.getKey();
      lowerCount = count;
    }
    return lowerBound;
  }
}
