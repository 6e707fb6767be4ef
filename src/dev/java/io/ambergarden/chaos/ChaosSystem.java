package io.ambergarden.chaos;

import io.ambergarden.bench.BenchService;
import io.ambergarden.bench.ClassDataSharing;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.Ports;
import io.ambergarden.metrics.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The system under test: the local runtime's Cassandra nodes and broker, and service instances in
 * fixed slots (one HTTP port each, as pods behind a Service). Keeps, per instance process, the last
 * scraped speculative-execution counts, so instances that die still count in the total.
 */
final class ChaosSystem implements AutoCloseable {
  static final List<String> SPECULATED = List.of("write", "read", "counter");

  /** Write-path totals the checker sums over every instance process of the run. */
  static final List<String> WRITE_TOTALS =
      List.of("amber_counter_journal_events_total", "amber_counter_unknown_outcomes_total");

  /**
   * C1 only: half the CPU of default tiered to reach ready (bench.StartupBench on this 2-core box);
   * a smaller heap, SerialGC, one compiler thread or a smaller stack measured no faster.
   */
  static final List<String> JVM = List.of("-Xmx512m", "-XX:TieredStopAtLevel=1");

  private final LocalRuntime runtime;
  private final Map<String, String> config;
  private final int[] ports;
  private final BenchService[] slots;
  private final Path logDir;
  private final ClassDataSharing cds;
  private final Map<Long, Map<String, Double>> speculativeByPid = new ConcurrentHashMap<>();
  private final Map<Long, Map<String, Double>> writeTotalsByPid = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private int started;

  ChaosSystem(LocalRuntime runtime, Map<String, String> config, int instances, Path logDir)
      throws IOException {
    this.runtime = runtime;
    this.config = Map.copyOf(config);
    this.ports = new int[instances];
    this.slots = new BenchService[instances];
    this.logDir = logDir;
    this.cds =
        ClassDataSharing.in(
            runtime.options().baseDir().resolve("cds"), BenchService.harnessClasspath());
    for (int i = 0; i < instances; i++) {
      ports[i] = Ports.free();
    }
  }

  LocalRuntime runtime() {
    return runtime;
  }

  CassandraNode node(int index) {
    return runtime.cluster().node(index);
  }

  int instances() {
    return slots.length;
  }

  int port(int slot) {
    return ports[slot];
  }

  HttpClient http() {
    return http;
  }

  URI uri(int slot, String path) {
    return URI.create("http://127.0.0.1:" + ports[slot] + path);
  }

  /** GET on the slot's instance, whatever it answers. */
  HttpResponse<String> get(int slot, String path, Duration timeout)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(slot, path)).timeout(timeout).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  synchronized BenchService slot(int slot) {
    return slots[slot];
  }

  synchronized boolean isUp(int slot) {
    return slots[slot] != null && slots[slot].isAlive();
  }

  /**
   * Starts a new instance in the slot; only the first instance of the run applies the schema. That
   * first start is a rehearsal: it runs to ready and exits, writing the class-data-sharing archive
   * every later instance maps, so replacements start in a fraction of the time.
   */
  void start(int slot) throws IOException, InterruptedException {
    if (startNumber() == 0) {
      launch(slot, cds.dumpOptions()).close();
      System.out.printf(
          "[chaos] class-data-sharing archive %s: %s%n",
          cds.archive(), cds.archived() ? "written" : "NOT written, instances start without it");
    }
    BenchService s = launch(slot, cds.useOptions());
    synchronized (this) {
      slots[slot] = s;
    }
  }

  private synchronized int startNumber() {
    return started;
  }

  private BenchService launch(int slot, List<String> cdsOptions)
      throws IOException, InterruptedException {
    Map<String, String> cfg = new HashMap<>(config);
    cfg.put("http.port", Integer.toString(ports[slot]));
    int n;
    synchronized (this) {
      n = started++;
    }
    cfg.put("cassandra.schema.apply", Boolean.toString(n == 0));
    List<String> jvm = new ArrayList<>(JVM);
    jvm.addAll(cdsOptions);
    return BenchService.start(
        cfg,
        ports[slot],
        jvm,
        cds.classpath(),
        logDir.resolve("instance-" + slot + "-" + n + ".log"));
  }

  /** SIGKILL the slot's instance, its speculation counts scraped first. */
  void kill(int slot) throws InterruptedException {
    BenchService s = take(slot);
    if (s != null) {
      s.crash();
    }
  }

  /** SIGTERM the slot's instance and wait for its graceful exit; returns how long it took. */
  Duration terminate(int slot) throws InterruptedException {
    BenchService s = take(slot);
    Instant t0 = Instant.now();
    if (s != null) {
      s.close();
    }
    return Duration.between(t0, Instant.now());
  }

  private BenchService take(int slot) {
    BenchService s;
    synchronized (this) {
      s = slots[slot];
      slots[slot] = null;
    }
    if (s != null) {
      scrape(s);
    }
    return s;
  }

  /** Scrapes every living instance's speculative-execution counters. */
  void scrapeAll() {
    for (int i = 0; i < slots.length; i++) {
      BenchService s = slot(i);
      if (s != null && s.isAlive()) {
        scrape(s);
      }
    }
  }

  private void scrape(BenchService s) {
    String text = s.metrics();
    if (text.isEmpty()) {
      return;
    }
    Map<String, Double> counts = new HashMap<>();
    for (String kind : SPECULATED) {
      counts.put(
          kind,
          PrometheusText.sum(
              text, "amber_cassandra_speculative_executions_total", "statement=\"" + kind + "\""));
    }
    speculativeByPid.put(s.handle().pid(), counts);
    Map<String, Double> totals = new HashMap<>();
    for (String metric : WRITE_TOTALS) {
      totals.put(metric, PrometheusText.sum(text, metric, ""));
    }
    writeTotalsByPid.put(s.handle().pid(), totals);
  }

  /**
   * One of {@link #WRITE_TOTALS} summed over every instance the run started (at its last scrape).
   */
  long sumOverInstances(String metric) {
    return Math.round(
        writeTotalsByPid.values().stream().mapToDouble(m -> m.getOrDefault(metric, 0.0)).sum());
  }

  /** Speculative executions by statement kind, summed over every instance the run started. */
  Map<String, Double> speculativeExecutions() {
    Map<String, Double> sum = new HashMap<>();
    for (Map<String, Double> m : speculativeByPid.values()) {
      m.forEach((k, v) -> sum.merge(k, v, Double::sum));
    }
    return sum;
  }

  /** Brings every fault back: nodes resumed and started, the broker started, every slot filled. */
  void healAll() throws IOException, InterruptedException {
    for (CassandraNode n : runtime.cluster().nodes()) {
      if (n.isRunning()) {
        try {
          n.resume();
        } catch (RuntimeException notPaused) {
          // resume of a node that was not paused
        }
      }
    }
    runtime.cluster().start();
    runtime.kafka().start();
    for (int i = 0; i < slots.length; i++) {
      if (!isUp(i)) {
        start(i);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (int i = 0; i < slots.length; i++) {
      BenchService s = take(i);
      if (s != null) {
        s.close();
      }
    }
  }
}
