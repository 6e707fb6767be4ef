package io.ambergarden.chaos;

import io.ambergarden.bench.BenchService;
import io.ambergarden.bench.ClassDataSharing;
import io.ambergarden.chaos.net.ClockSkew;
import io.ambergarden.chaos.net.Firewall;
import io.ambergarden.chaos.net.SourceAddress;
import io.ambergarden.counter.CounterCells;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.KafkaClusterAdmin;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.Ports;
import io.ambergarden.metrics.PrometheusText;
import java.io.IOException;
import java.net.InetAddress;
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
 * The system under test: the local runtime's Cassandra nodes and brokers, and service instances in
 * fixed slots (one HTTP port each, as pods behind a Service). Every node, broker and instance
 * connects from an address of its own (node i 127.0.0.i, broker b 127.0.0.1b, slot k 127.0.1.k+1)
 * so partitions can cut it, and runs on a clock skew file of its own (zero until the nemesis moves
 * it). Keeps, per instance process, the last scraped metrics, so instances that die still count in
 * the totals.
 */
final class ChaosSystem implements AutoCloseable {
  static final String API_KEY_HEADER = "X-API-Key";

  static final List<String> SPECULATED = List.of("write", "read", "counter");

  /** Write-path totals the checker sums over every instance process of the run. */
  static final List<String> WRITE_TOTALS =
      List.of("amber_counter_journal_events_total", "amber_counter_unknown_outcomes_total");

  /** Events in counter updates of unknown outcome, by the cells' tag (CounterCells.KINDS). */
  static final String UNKNOWN_OUTCOME_EVENTS = "amber_counter_unknown_outcome_events_total";

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
  private final Firewall firewall;
  private final int directSlot;
  private final String apiKey;
  private final Map<Integer, ClockSkew> nodeSkews = new HashMap<>();
  private final ClockSkew[] slotSkews;
  private final KafkaClusterAdmin kafkaAdmin;
  private final Map<Long, Map<String, Double>> speculativeByPid = new ConcurrentHashMap<>();
  private final Map<Long, Map<String, Double>> writeTotalsByPid = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private int started;

  /**
   * Before the runtime starts: gives every node and broker its source address and every node its
   * clock skew file, so their processes start with them.
   */
  ChaosSystem(
      LocalRuntime runtime,
      Firewall firewall,
      String apiKey,
      Map<String, String> config,
      int instances,
      Path logDir,
      int directSlot)
      throws IOException {
    this.runtime = runtime;
    this.directSlot = directSlot;
    this.firewall = firewall;
    this.apiKey = apiKey;
    Path skews = runtime.options().baseDir().resolve("clock-skew");
    for (CassandraNode n : runtime.cluster().nodes()) {
      SourceAddress s = SourceAddress.of(NODE_GIDS, n.index(), nodeAddress(n.index()));
      firewall.assign(s);
      n.setLaunchPrefix(s.launchPrefix());
      ClockSkew skew = ClockSkew.file(skews.resolve("node-" + n.index()));
      nodeSkews.put(n.index(), skew);
      n.setLaunchEnvironment(skew.env());
    }
    for (KafkaBroker b : runtime.kafkaCluster().nodes()) {
      SourceAddress s = SourceAddress.of(BROKER_GIDS, b.nodeId(), address(b.host()));
      firewall.assign(s);
      b.setLaunchPrefix(s.launchPrefix());
    }
    this.slotSkews = new ClockSkew[instances];
    for (int i = 0; i < instances; i++) {
      firewall.assign(instanceSource(i));
      slotSkews[i] = ClockSkew.file(skews.resolve("instance-" + i));
    }
    this.kafkaAdmin = KafkaClusterAdmin.of(runtime.kafkaCluster());
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

  static final int NODE_GIDS = 0;
  static final int BROKER_GIDS = 10;
  static final int INSTANCE_GIDS = 20;

  static InetAddress nodeAddress(int node) {
    return address("127.0.0." + node);
  }

  static InetAddress instanceAddress(int slot) {
    return address("127.0.1." + (slot + 1));
  }

  static SourceAddress instanceSource(int slot) {
    return SourceAddress.of(INSTANCE_GIDS, slot + 1, instanceAddress(slot));
  }

  static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(literal, e);
    }
  }

  Firewall firewall() {
    return firewall;
  }

  KafkaClusterAdmin kafkaAdmin() {
    return kafkaAdmin;
  }

  ClockSkew nodeSkew(int node) {
    return nodeSkews.get(node);
  }

  ClockSkew slotSkew(int slot) {
    return slotSkews[slot];
  }

  String apiKey() {
    return apiKey;
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
        HttpRequest.newBuilder(uri(slot, path))
            .timeout(timeout)
            .header(API_KEY_HEADER, apiKey)
            .GET()
            .build(),
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
    cfg.put("ingest.mode", slot == directSlot ? "direct" : "kafka");
    int n;
    synchronized (this) {
      n = started++;
    }
    cfg.put("cassandra.schema.apply", Boolean.toString(n == 0));
    List<String> jvm = new ArrayList<>(JVM);
    jvm.addAll(cdsOptions);
    BenchService s =
        BenchService.start(
            cfg,
            ports[slot],
            jvm,
            cds.classpath(),
            logDir.resolve("instance-" + slot + "-" + n + ".log"),
            instanceSource(slot).launchPrefix(),
            slotSkews[slot].env());
    s.authenticateWith(apiKey);
    return s;
  }

  /** SIGKILL the slot's instance, its speculation counts scraped first. */
  void kill(int slot) throws InterruptedException {
    BenchService s = take(slot);
    if (s != null) {
      s.crash();
    }
  }

  /** SIGSTOP (true) or SIGCONT (false) the slot's instance; false when the slot is empty. */
  boolean signal(int slot, boolean stop) throws IOException, InterruptedException {
    BenchService s = slot(slot);
    if (s == null || !s.isAlive()) {
      return false;
    }
    Process p =
        new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(s.handle().pid()))
            .redirectErrorStream(true)
            .start();
    return p.waitFor() == 0;
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
    for (String cells : CounterCells.KINDS) {
      totals.put(
          unknownOutcomeEvents(cells),
          PrometheusText.sum(text, UNKNOWN_OUTCOME_EVENTS, "cells=\"" + cells + "\""));
    }
    writeTotalsByPid.put(s.handle().pid(), totals);
  }

  /** The key {@link #sumOverInstances} knows the unknown-outcome events of {@code cells} by. */
  static String unknownOutcomeEvents(String cells) {
    return UNKNOWN_OUTCOME_EVENTS + "{cells=" + cells + "}";
  }

  /** The unknown-outcome events by cells, summed over every instance the run started. */
  Map<String, Long> unknownOutcomeEventsByCells() {
    Map<String, Long> out = new HashMap<>();
    CounterCells.KINDS.forEach(c -> out.put(c, sumOverInstances(unknownOutcomeEvents(c))));
    return out;
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

  /**
   * Undoes every fault: cuts removed, clocks back to zero skew, nodes and brokers resumed and
   * started, paused instances resumed, every slot filled.
   */
  void healAll() throws IOException, InterruptedException {
    firewall.healAll();
    nodeSkews.values().forEach(k -> k.set(java.time.Duration.ZERO));
    for (ClockSkew k : slotSkews) {
      k.set(java.time.Duration.ZERO);
    }
    for (CassandraNode n : runtime.cluster().nodes()) {
      if (n.isPaused()) {
        n.resume();
      }
    }
    for (KafkaBroker b : runtime.kafkaCluster().nodes()) {
      if (b.isPaused()) {
        b.resume();
      }
    }
    runtime.cluster().start();
    runtime.kafkaCluster().start();
    for (int i = 0; i < slots.length; i++) {
      signal(i, false);
      if (!isUp(i)) {
        start(i);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    kafkaAdmin.close();
    for (int i = 0; i < slots.length; i++) {
      BenchService s = take(i);
      if (s != null) {
        s.close();
      }
    }
  }
}
