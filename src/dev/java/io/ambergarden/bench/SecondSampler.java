package io.ambergarden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Samples, once a second, the progress counter of each running phase (as a rate) and per-interval
 * gauges such as a read latency p99, into {@link TimeSeries} on one time axis that starts when the
 * first series starts.
 */
final class SecondSampler implements AutoCloseable {
  /** A last partial interval shorter than this would be a noisy rate; it is dropped. */
  private static final long MIN_FINAL_INTERVAL_NANOS = 250_000_000L;

  private long startNanos = -1;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-sampler");
            t.setDaemon(true);
            return t;
          });
  private final Map<TimeSeries, Source> active = new LinkedHashMap<>();
  private final List<TimeSeries> rates = new ArrayList<>();
  private final List<TimeSeries> gauges = new ArrayList<>();

  private interface Source {
    void sample(TimeSeries into, long nanos, boolean last);
  }

  SecondSampler() {
    timer.scheduleAtFixedRate(this::sampleAll, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * Starts sampling a cumulative counter as units per second; {@link #stop} ends it with a final
   * sample.
   */
  synchronized TimeSeries rate(String name, LongSupplier total) {
    TimeSeries series = new TimeSeries(name);
    long[] last = {total.getAsLong(), startClock()};
    rates.add(series);
    active.put(
        series,
        (into, nanos, isLast) -> {
          if (isLast && nanos - last[1] < MIN_FINAL_INTERVAL_NANOS) {
            return;
          }
          long now = total.getAsLong();
          into.add(secondsAt(nanos), TimeSeries.rate(last[0], now, last[1], nanos));
          last[0] = now;
          last[1] = nanos;
        });
    return series;
  }

  /**
   * Starts sampling a value that covers the last interval; NaN (nothing measured) adds no point.
   */
  synchronized TimeSeries gauge(String name, DoubleSupplier valueOfLastInterval) {
    TimeSeries series = new TimeSeries(name);
    startClock();
    gauges.add(series);
    active.put(
        series,
        (into, nanos, isLast) -> {
          double v = valueOfLastInterval.getAsDouble();
          if (!Double.isNaN(v)) {
            into.add(secondsAt(nanos), v);
          }
        });
    return series;
  }

  synchronized void stop(TimeSeries series) {
    Source source = active.remove(series);
    if (source != null) {
      source.sample(series, System.nanoTime(), true);
    }
  }

  synchronized List<TimeSeries> rates() {
    return List.copyOf(rates);
  }

  synchronized List<TimeSeries> gauges() {
    return List.copyOf(gauges);
  }

  private synchronized void sampleAll() {
    long nanos = System.nanoTime();
    active.forEach(
        (series, source) -> {
          try {
            source.sample(series, nanos, false);
          } catch (RuntimeException e) {
            // an exception escaping a fixed-rate task would silently cancel all later samples
            System.out.println("  sampler: " + series.name() + " failed: " + e);
          }
        });
  }

  /** Returns now; the first call sets the time axis origin. */
  private long startClock() {
    long now = System.nanoTime();
    if (startNanos < 0) {
      startNanos = now;
    }
    return now;
  }

  private double secondsAt(long nanos) {
    return (nanos - startNanos) / 1e9;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
