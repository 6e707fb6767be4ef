package io.ambergarden.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a fixed-rate window cost, per 1000 events and per process: its CPU less the idle floor (what
 * each process burns with no load, measured over an idle window of the same run), plus the CPU left
 * over after the window until the servers were quiet again (compaction and flushes the window
 * caused), less the floor over that tail too. The harness is reported apart, never in the system
 * figure. A process whose CPU is unknown in any of the three windows is NaN.
 *
 * @param millisPer1000 net CPU ms per 1000 events of each process (the harness included)
 * @param systemMillisPer1000 the sum over every process but the harness
 * @param harnessMillisPer1000 the harness's own, gross (it runs only for the benchmark)
 * @param utilisation the share of the machine's cores all processes kept busy during the window,
 *     gross
 */
record SteadyCost(
    String name,
    long events,
    double wallSeconds,
    Map<String, Double> millisPer1000,
    double systemMillisPer1000,
    double harnessMillisPer1000,
    double utilisation) {

  /**
   * @param load the fixed-rate window
   * @param tail after it, until the servers were quiet; null when not measured
   * @param idle an idle window of the same run, for the floor
   * @param harness the harness's process name in the ledger
   * @param cores the machine's cores
   */
  static SteadyCost of(
      CpuLedger.Phase load, CpuLedger.Phase tail, CpuLedger.Phase idle, String harness, int cores) {
    if (load.events() <= 0) {
      throw new IllegalArgumentException("a cost needs events: " + load.name());
    }
    Map<String, Double> perProcess = new LinkedHashMap<>();
    double system = 0;
    double gross = 0;
    for (Map.Entry<String, Double> e : load.cpuSeconds().entrySet()) {
      String process = e.getKey();
      double used = e.getValue();
      gross += Double.isNaN(used) ? 0 : used;
      double net;
      if (process.equals(harness)) {
        net = used;
      } else {
        double floor = idle.cores(process);
        net = used - floor * load.wallSeconds();
        if (tail != null) {
          net += tail.cpuSeconds().getOrDefault(process, Double.NaN) - floor * tail.wallSeconds();
        }
      }
      double ms = net * 1e6 / load.events();
      perProcess.put(process, ms);
      if (!process.equals(harness)) {
        system += ms;
      }
    }
    return new SteadyCost(
        load.name(),
        load.events(),
        load.wallSeconds(),
        Map.copyOf(perProcess),
        system,
        perProcess.getOrDefault(harness, Double.NaN),
        gross / (load.wallSeconds() * cores));
  }
}
