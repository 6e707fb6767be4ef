package io.ambergarden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * CPU time each process of the run spends per phase (from the kernel's accounting via {@link ProcessHandle}):
 * on a shared machine this shows who bounds a phase, and how much CPU each process needs per event.
 */
final class CpuLedger {
  /** One phase: wall time, events handled and CPU seconds per process (NaN where a process was unknown). */
  record Phase(String name, long events, double wallSeconds, Map<String, Double> cpuSeconds) {
    /** Cores the process kept busy on average during the phase. */
    double cores(String process) {
      return cpuSeconds.getOrDefault(process, Double.NaN) / wallSeconds;
    }

    /** CPU milliseconds the process spent per 1000 events of the phase. */
    double millisPer1000Events(String process) {
      return cpuSeconds.getOrDefault(process, Double.NaN) * 1e6 / events;
    }

    /** Over the processes that ran during the phase. */
    double totalCores() {
      return cpuSeconds.values().stream().filter(v -> !Double.isNaN(v)).mapToDouble(Double::doubleValue).sum()
          / wallSeconds;
    }
  }

  /** A phase that has started: the CPU totals and the clock at its start. */
  final class Span {
    private final String name;
    private final Map<String, Double> startCpu;
    private final long startNanos = System.nanoTime();

    private Span(String name) {
      this.name = name;
      this.startCpu = cpuTotals();
    }

    Phase end(long events) {
      double wall = (System.nanoTime() - startNanos) / 1e9;
      Map<String, Double> end = cpuTotals();
      Map<String, Double> used = new LinkedHashMap<>();
      end.forEach((process, seconds) -> used.put(process, seconds - startCpu.getOrDefault(process, Double.NaN)));
      Phase phase = new Phase(name, events, wall, used);
      synchronized (CpuLedger.this) {
        phases.add(phase);
      }
      return phase;
    }
  }

  private final Map<String, Supplier<Optional<ProcessHandle>>> processes = new LinkedHashMap<>();
  private final List<Phase> phases = new ArrayList<>();

  /** Processes by display name; a supplier, since a server may be (re)started during the run. */
  CpuLedger process(String name, Supplier<Optional<ProcessHandle>> handle) {
    processes.put(name, handle);
    return this;
  }

  List<String> processNames() {
    return List.copyOf(processes.keySet());
  }

  Span start(String phase) {
    return new Span(phase);
  }

  synchronized List<Phase> phases() {
    return List.copyOf(phases);
  }

  private Map<String, Double> cpuTotals() {
    Map<String, Double> totals = new LinkedHashMap<>();
    processes.forEach((name, handle) -> totals.put(name, handle.get().flatMap(h -> h.info().totalCpuDuration())
        .map(CpuLedger::seconds).orElse(Double.NaN)));
    return totals;
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
