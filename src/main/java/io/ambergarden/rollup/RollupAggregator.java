package io.ambergarden.rollup;

import java.util.Map;
import java.util.TreeMap;

/** Exact count, min, max and sum per metric over one device-hour of detail rows. */
public final class RollupAggregator {
  public record Stats(long count, double min, double max, double sum) {
    public double avg() {
      return sum / count;
    }

    Stats add(double v) {
      return new Stats(count + 1, Math.min(min, v), Math.max(max, v), sum + v);
    }
  }

  private final Map<String, Stats> byMetric = new TreeMap<>();

  public void add(Map<String, Double> metrics) {
    metrics.forEach((name, v) -> byMetric.merge(name, new Stats(1, v, v, v), (a, b) -> a.add(v)));
  }

  public Map<String, Stats> result() {
    return byMetric;
  }
}
