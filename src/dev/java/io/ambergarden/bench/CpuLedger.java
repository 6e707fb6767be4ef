package io.ambergarden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * CPU time each process of the run spends per phase (from the kernel's accounting via {@link
 * ProcessHandle}): on a shared machine this shows who bounds a phase, and how much CPU each process
 * needs per event.
 */
final class CpuLedger {
  /**
   * One phase: wall time, events handled and CPU seconds per process (NaN where a process was
   * unknown).
   */
  record Phase(
      String name,
      long events,
      double wallSeconds,
      Map<String, Double> cpuSeconds,
      Map<String, Long> counts) {
    Phase(String name, long events, double wallSeconds, Map<String, Double> cpuSeconds) {
      this(name, events, wallSeconds, cpuSeconds, Map.of());
    }

    /** Cores the process kept busy on average during the phase. */
    double cores(String process) {
      return cpuSeconds.getOrDefault(process, Double.NaN) / wallSeconds;
    }

    /**
     * CPU milliseconds the process spent per 1000 events of the phase; NaN for a phase without
     * events.
     */
    double millisPer1000Events(String process) {
      return events == 0 ? Double.NaN : cpuSeconds.getOrDefault(process, Double.NaN) * 1e6 / events;
    }

    /** Over the processes that ran during the phase. */
    double totalCores() {
      return cpuSeconds.values().stream()
              .filter(v -> !Double.isNaN(v))
              .mapToDouble(Double::doubleValue)
              .sum()
          / wallSeconds;
    }
  }

  /** A phase that has started: the CPU totals and the clock at its start. */
  final class Span {
    private final String name;
    private final Map<String, Double> startCpu;
    private final Map<String, Long> startCounts;
    private final long startNanos = System.nanoTime();

    private Span(String name) {
      this.name = name;
      this.startCpu = cpuTotals();
      this.startCounts = countTotals();
    }

    long startNanos() {
      return startNanos;
    }

    Phase end(long events) {
      double wall = (System.nanoTime() - startNanos) / 1e9;
      Map<String, Double> end = cpuTotals();
      Map<String, Double> used = new LinkedHashMap<>();
      end.forEach(
          (process, seconds) ->
              used.put(process, seconds - startCpu.getOrDefault(process, Double.NaN)));
      Map<String, Long> counted = new LinkedHashMap<>();
      countTotals()
          .forEach(
              (counter, total) -> {
                Long start = startCounts.get(counter);
                if (start != null) {
                  counted.put(counter, total - start);
                }
              });
      Phase phase = new Phase(name, events, wall, used, counted);
      synchronized (CpuLedger.this) {
        phases.add(phase);
      }
      return phase;
    }
  }

  private final Map<String, Supplier<Optional<ProcessHandle>>> processes = new LinkedHashMap<>();
  private final Map<String, Supplier<OptionalLong>> counters = new LinkedHashMap<>();
  private final List<Phase> phases = new ArrayList<>();

  /** Processes by display name; a supplier, since a server may be (re)started during the run. */
  CpuLedger process(String name, Supplier<Optional<ProcessHandle>> handle) {
    processes.put(name, handle);
    return this;
  }

  /**
   * A cumulative count to difference over each phase (e.g. a counter of the service under test);
   * empty while it cannot be read, and then left out of the phases it did not span.
   */
  CpuLedger counter(String name, Supplier<OptionalLong> total) {
    counters.put(name, total);
    return this;
  }

  List<String> processNames() {
    return List.copyOf(processes.keySet());
  }

  /** The process by its display name, if it is running now. */
  Optional<ProcessHandle> handle(String process) {
    return processes.getOrDefault(process, Optional::empty).get();
  }

  Span start(String phase) {
    return new Span(phase);
  }

  synchronized List<Phase> phases() {
    return List.copyOf(phases);
  }

  /**
   * Waits until {@code process} used at most {@code cores} over one {@code window}, or the deadline
   * passes; returns the seconds waited. A node compacting after a write burst is not yet at its
   * steady state.
   */
  double awaitQuiet(String process, double cores, Duration window, Duration deadline)
      throws InterruptedException {
    long start = System.nanoTime();
    long end = start + deadline.toNanos();
    double before = cpuTotals().getOrDefault(process, Double.NaN);
    while (System.nanoTime() < end) {
      TimeUnit.NANOSECONDS.sleep(window.toNanos()); // the averaging window of the condition
      double now = cpuTotals().getOrDefault(process, Double.NaN);
      if (Double.isNaN(now) || (now - before) / seconds(window) <= cores) {
        break;
      }
      before = now;
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private Map<String, Long> countTotals() {
    Map<String, Long> totals = new LinkedHashMap<>();
    counters.forEach((name, total) -> total.get().ifPresent(v -> totals.put(name, v)));
    return totals;
  }

  private Map<String, Double> cpuTotals() {
    Map<String, Double> totals = new LinkedHashMap<>();
    processes.forEach(
        (name, handle) ->
            totals.put(
                name,
                handle
                    .get()
                    .flatMap(h -> h.info().totalCpuDuration())
                    .map(CpuLedger::seconds)
                    .orElse(Double.NaN)));
    return totals;
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
