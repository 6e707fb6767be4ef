package io.ambergarden.rollup;

import io.ambergarden.counter.CounterCells;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exact counts of one (device, hour), from its distinct stored events: per device cell name (as the
 * counters name them) and per day-stats dimension. Summing a shard's devices' dimensions gives the
 * shard's exact day stats of that hour.
 */
public final class HourCounts {
  /** A day-stats cell: dimension 'all' (value ''), 'code', 'status' or 'type'. */
  public record Dimension(String dimension, String value) implements Comparable<Dimension> {
    @Override
    public int compareTo(Dimension o) {
      int c = dimension.compareTo(o.dimension);
      return c != 0 ? c : value.compareTo(o.value);
    }
  }

  private final Map<String, Long> byName = new TreeMap<>();
  private final Map<Dimension, Long> byDimension = new TreeMap<>();

  public void add(String status, Integer code, String deviceType) {
    byName.merge(CounterCells.deviceName(status), 1L, Long::sum);
    byDimension.merge(new Dimension(CounterCells.ALL, ""), 1L, Long::sum);
    if (code != null) {
      byDimension.merge(new Dimension(CounterCells.CODE, Integer.toString(code)), 1L, Long::sum);
    }
    if (status != null) {
      byDimension.merge(new Dimension(CounterCells.STATUS, status), 1L, Long::sum);
    }
    if (deviceType != null) {
      byDimension.merge(new Dimension(CounterCells.TYPE, deviceType), 1L, Long::sum);
    }
  }

  /** Events per device cell name ('status:x' or 'none'); their sum is the hour's total. */
  public Map<String, Long> byName() {
    return byName;
  }

  public Map<Dimension, Long> byDimension() {
    return byDimension;
  }

  /** Adds another device's dimension counts (the shard's sum of an hour). */
  public static void addTo(Map<Dimension, Long> sum, Dimension d, long events) {
    sum.merge(d, events, Long::sum);
  }
}
