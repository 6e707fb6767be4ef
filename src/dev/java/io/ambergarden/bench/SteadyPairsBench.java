package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.cassandra.SchemaScript;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.ambergarden.localrt.Ports;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * Issue 31's before-and-after method: two variants of the service (A and B, each a set of config
 * settings and JVM options) alternated over {@link #ROUNDS} rounds of the same fixed-rate window on
 * one Cassandra and Kafka, so both see the same background. Each window is a fresh service on a
 * fresh topic: warmed up, settled, an idle floor, then {@link #SECONDS} s at {@link #RATE} events/s
 * (open loop, in order per device) with a live probe, and the CPU until Cassandra is quiet again
 * booked to it ({@link SteadyCost}). More variants (bench.pairs.variants=a,b,c) rotate the same
 * way. Reports each window and, for each variant, the median over rounds of its figure over A's.
 * {@code mvn -Pbench -Dbench.main=io.ambergarden.bench.SteadyPairsBench
 * -Dbench.pairs.b-config="kafka.consumer.fetch-min-bytes=65536" -Dbench.pairs.b-jvm=-XX:+UseZGC}.
 */
public final class SteadyPairsBench {
  static final double RATE = Double.parseDouble(System.getProperty("bench.pairs.rate", "3500"));
  static final int SECONDS = Integer.getInteger("bench.pairs.seconds", 60);
  static final int ROUNDS = Integer.getInteger("bench.pairs.rounds", 3);

  /**
   * Events each window's fresh service consumes before it is measured. 30,000 left C2 compiling
   * through the measured minute (half the service's CPU over its first two minutes), which moved
   * its cost by ±25% between rounds.
   */
  static final int WARM_EVENTS = Integer.getInteger("bench.pairs.warm-events", 150_000);

  static final int DEVICES = 2000;
  static final int LIVE_EVENTS = 250;
  static final int IDLE_SECONDS = 20;
  static final double QUIET_CORES = 0.15;
  static final String KEYSPACE = "amber_pairs";
  static final String HARNESS = "harness";
  private static final DateTimeFormatter DIR_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'").withZone(ZoneOffset.UTC);

  /**
   * A service variant: settings over the bench's, JVM options after the fixed heap, and the
   * service's own classes (another worktree's target/classes, e.g. a branch under test) or null for
   * the harness's. A variant with a keyspace of its own ({@code cassandra.keyspace=...}) gets its
   * schema from its own classes when its service starts.
   */
  record Variant(String name, Map<String, String> config, List<String> jvm, String classes) {
    static Variant fromSystem(String name) {
      Map<String, String> config = new LinkedHashMap<>();
      for (String kv : words(System.getProperty("bench.pairs." + name + "-config", ""))) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("bench.pairs." + name + "-config: not k=v: " + kv);
        }
        config.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
      return new Variant(
          name,
          config,
          words(System.getProperty("bench.pairs." + name + "-jvm", "")),
          System.getProperty("bench.pairs." + name + "-classes"));
    }

    String keyspace() {
      return config.getOrDefault("cassandra.keyspace", KEYSPACE);
    }

    /** The harness's classpath, with its own classes replaced by the variant's. */
    String classpath() {
      String harness = BenchService.harnessClasspath();
      if (classes == null) {
        return harness;
      }
      String own = Path.of("target", "classes").toAbsolutePath().toString();
      List<String> entries = new ArrayList<>(List.of(classes));
      for (String e : harness.split(java.io.File.pathSeparator)) {
        if (!e.equals(own)) {
          entries.add(e);
        }
      }
      return String.join(java.io.File.pathSeparator, entries);
    }

    private static List<String> words(String s) {
      return Arrays.stream(s.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    JsonObject json() {
      return new JsonObject()
          .put("name", name)
          .put("config", new JsonObject(Map.copyOf(config)))
          .put("jvm", new JsonArray(jvm))
          .put("classes", classes);
    }
  }

  /** One measured window of one variant. */
  record Window(
      String variant,
      int round,
      SteadyCost cost,
      LiveLatencyProbe.Summary live,
      double gcPauseP99,
      int gcPauses) {
    JsonObject json() {
      JsonObject perProcess = new JsonObject();
      cost.millisPer1000().forEach(perProcess::put);
      return new JsonObject()
          .put("variant", variant)
          .put("round", round)
          .put("events", cost.events())
          .put("wallSeconds", cost.wallSeconds())
          .put("millisPer1000", perProcess)
          .put("systemMillisPer1000", cost.systemMillisPer1000())
          .put("utilisation", cost.utilisation())
          .put("liveP50Millis", live.p50Millis())
          .put("liveP99Millis", live.p99Millis())
          .put("gcPauseP99Millis", Double.isFinite(gcPauseP99) ? gcPauseP99 : null)
          .put("gcPauses", gcPauses);
    }
  }

  private final LocalRuntime runtime;
  private final String prefix = "pair-" + UUID.randomUUID().toString().substring(0, 6);
  private final int cores = Runtime.getRuntime().availableProcessors();
  private final CpuLedger ledger;
  private volatile BenchService service;

  private SteadyPairsBench(LocalRuntime runtime) {
    this.runtime = runtime;
    this.ledger =
        new CpuLedger()
            .process("Cassandra", () -> runtime.cassandra().pid().flatMap(ProcessHandle::of))
            .process("Kafka", () -> runtime.kafka().pid().flatMap(ProcessHandle::of))
            .process("service", () -> Optional.ofNullable(service).map(BenchService::handle))
            .process(HARNESS, () -> Optional.of(ProcessHandle.current()));
  }

  public static void main(String[] args) throws Exception {
    Instant startedAt = Instant.now();
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    List<Variant> variants =
        Arrays.stream(System.getProperty("bench.pairs.variants", "a,b").split(","))
            .map(String::trim)
            .map(Variant::fromSystem)
            .toList();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      SteadyPairsBench bench = new SteadyPairsBench(runtime);
      bench.createKeyspaces(variants);
      // the first window after the servers start ran 2-6x the live p99 of any later one, in both
      // runs that had it: a window of the first variant, not recorded, takes that
      System.out.println("warm-up: " + line(bench.window(variants.get(0), 0, options.baseDir())));
      List<Window> windows = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        // rotate the order, so no variant always follows the same one
        for (int k = 0; k < variants.size(); k++) {
          Variant v = variants.get((round - 1 + k) % variants.size());
          Window w = bench.window(v, round, options.baseDir());
          System.out.println(line(w));
          windows.add(w);
        }
      }
      JsonObject json = report(startedAt, variants, windows);
      Path dir =
          options
              .projectDir()
              .resolve(".bench-results")
              .resolve(DIR_NAME.format(startedAt) + "-pairs");
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("results.json"), json.encodePrettily());
      System.out.println(json.getJsonObject("medianRatiosToA").encodePrettily());
      System.out.println("Results: " + dir);
    }
    System.exit(0);
  }

  private Map<String, String> baseConfig() {
    Map<String, String> cfg = new LinkedHashMap<>();
    cfg.put("cassandra.contact-points", runtime.cassandraContactPoint());
    cfg.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("media.enabled", "false");
    cfg.put("auth.enabled", "false");
    return cfg;
  }

  /**
   * Drops every variant's keyspace, then applies the harness's schema to the default one; a variant
   * with a keyspace of its own has it created by its service's first start.
   */
  private void createKeyspaces(List<Variant> variants) {
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      for (String ks : variants.stream().map(Variant::keyspace).distinct().toList()) {
        session.execute(
            SimpleStatement.newInstance("DROP KEYSPACE IF EXISTS " + ks)
                .setTimeout(Duration.ofMinutes(2)));
      }
      Map<String, String> values =
          SchemaMigrator.placeholders(ConfigLoader.load(Map.of(), new Properties(), baseConfig()));
      for (SchemaScript script : SchemaMigrator.scripts(values)) {
        script.statements().forEach(session::execute);
      }
    }
  }

  private Window window(Variant variant, int round, Path baseDir) throws Exception {
    String floor = variant.config().get(StorageFloor.SETTING);
    if (floor != null) {
      return floorWindow(variant, round, GroupedWriteLoop.Tables.valueOf(floor.toUpperCase()));
    }
    String bootstrap = runtime.kafkaBootstrap();
    String topic =
        "pairs-" + variant.name() + round + "-" + UUID.randomUUID().toString().substring(0, 6);
    String group = topic + "-group";
    BenchTopics.create(bootstrap, topic, topic + ".dlq");
    BenchTopics.produce(
        bootstrap,
        topic,
        BenchEvents.generate(
            prefix, WARM_EVENTS, DEVICES, System.currentTimeMillis(), 40L + round));
    int port = Ports.free();
    Map<String, String> cfg = baseConfig();
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", group);
    cfg.put("kafka.consumer.commit-interval", "200ms");
    cfg.put("live.topic", topic + ".live");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", Integer.toString(port));
    cfg.putAll(variant.config());
    Path gcLog = baseDir.resolve("pairs-gc-" + variant.name() + round + ".log");
    List<String> jvm = new ArrayList<>(List.of("-Xms1g", "-Xmx1g", GcLog.option(gcLog.toString())));
    jvm.addAll(variant.jvm());
    System.out.printf(
        "round %d, variant %s: %s %s%n", round, variant.name(), variant.config(), jvm);
    try (BenchService s =
        BenchService.start(
            cfg,
            port,
            jvm,
            variant.classpath(),
            baseDir.resolve("pairs-service-" + variant.name() + round + ".log"))) {
      service = s;
      AtomicLong committed = new AtomicLong();
      BenchTopics.awaitAllCommitted(bootstrap, group, topic, 0, WARM_EVENTS, committed);
      for (String process : List.of("service", "Cassandra")) {
        ledger.awaitQuiet(process, QUIET_CORES, Duration.ofSeconds(5), Duration.ofMinutes(2));
      }
      CpuLedger.Phase idle = idleFloor(variant, round);
      int count = (int) (RATE * SECONDS);
      List<BenchEvents.Spec> events = windowEvents("p" + variant.name() + round, count, round);
      Instant from = Instant.now();
      CpuLedger.Span load = ledger.start("load " + variant.name() + round);
      CompletableFuture<LiveLatencyProbe.Summary> probe =
          LiveLatencyProbe.start(bootstrap, topic, port, LIVE_EVENTS, 50);
      BenchTopics.produceAtRate(bootstrap, topic, events, RATE);
      LiveLatencyProbe.Summary live = probe.get(2, TimeUnit.MINUTES);
      BenchTopics.awaitAllCommitted(
          bootstrap, group, topic, WARM_EVENTS, count + LIVE_EVENTS, committed);
      CpuLedger.Phase loadPhase = load.end(count + LIVE_EVENTS);
      Instant to = Instant.now();
      CpuLedger.Phase tail = untilQuiet(variant, round, idle);
      double[] pauses = GcLog.pausesMillis(Files.readAllLines(gcLog), from, to);
      return new Window(
          variant.name(),
          round,
          SteadyCost.of(loadPhase, tail, idle, HARNESS, cores),
          live,
          GcLog.percentile(pauses, 99),
          pauses.length);
    } finally {
      service = null;
    }
  }

  /**
   * A window of the same events at the same rate written by the raw driver ({@link StorageFloor}),
   * with the same idle floor and tail booking; no service, so no live or GC figures.
   */
  private Window floorWindow(Variant variant, int round, GroupedWriteLoop.Tables tables)
      throws Exception {
    Map<String, String> cfg = baseConfig();
    cfg.putAll(variant.config());
    cfg.remove(StorageFloor.SETTING);
    // the writer's batching and the consumer's windows as the variant sets them
    AmberConfig base = ConfigLoader.load(Map.of(), new Properties(), cfg);
    System.out.printf(
        "round %d, variant %s: storage floor, %s rows%n", round, variant.name(), tables);
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      if (tables == GroupedWriteLoop.Tables.PACKED) {
        session.execute(
            SimpleStatement.newInstance(RawWriteLoop.createPackedTable(KEYSPACE))
                .setTimeout(Duration.ofMinutes(1)));
      }
      GroupedWriteLoop loop = GroupedWriteLoop.asConfigured(session, KEYSPACE, base);
      ledger.awaitQuiet("Cassandra", QUIET_CORES, Duration.ofSeconds(5), Duration.ofMinutes(2));
      CpuLedger.Phase idle = idleFloor(variant, round);
      int count = (int) (RATE * SECONDS);
      List<BenchEvents.Spec> events = windowEvents("f" + variant.name() + round, count, round);
      CpuLedger.Span load = ledger.start("load " + variant.name() + round);
      StorageFloor.write(
          loop,
          new InFlightWrites(session, base.writer().maxConcurrentStatements()),
          tables,
          events,
          RATE,
          base.kafka().fetchMaxWait().toMillis(),
          base.kafka().writeBatch());
      CpuLedger.Phase loadPhase = load.end(count);
      CpuLedger.Phase tail = untilQuiet(variant, round, idle);
      return new Window(
          variant.name(),
          round,
          SteadyCost.of(loadPhase, tail, idle, HARNESS, cores),
          new LiveLatencyProbe.Summary(0, Double.NaN, Double.NaN, Double.NaN),
          Double.NaN,
          0);
    }
  }

  /** The idle floor: {@link #IDLE_SECONDS} of each process's CPU with nothing to do. */
  private CpuLedger.Phase idleFloor(Variant variant, int round) throws InterruptedException {
    CpuLedger.Span idleSpan = ledger.start("idle " + variant.name() + round);
    TimeUnit.SECONDS.sleep(IDLE_SECONDS); // the idle floor's measurement window
    return idleSpan.end(0);
  }

  /** A window's events: {@link #RATE} per second from now, in order per device. */
  private List<BenchEvents.Spec> windowEvents(String tag, int count, int round) {
    return BenchEvents.streaming(
        prefix,
        tag,
        count,
        DEVICES,
        System.currentTimeMillis(),
        RATE,
        Math.max(0, BenchSettings.latePercent()),
        500L + round);
  }

  /** The CPU after a load until Cassandra is back near its idle floor, booked to the window. */
  private CpuLedger.Phase untilQuiet(Variant variant, int round, CpuLedger.Phase idle)
      throws InterruptedException {
    CpuLedger.Span tailSpan = ledger.start("until quiet " + variant.name() + round);
    ledger.awaitQuiet(
        "Cassandra", idle.cores("Cassandra") + 0.05, Duration.ofSeconds(5), Duration.ofMinutes(3));
    return tailSpan.end(0);
  }

  private static String line(Window w) {
    SteadyCost c = w.cost();
    return String.format(
        "round %d %s: system %.0f ms per 1000 events %s, harness %.0f apart, utilisation %.0f%%;"
            + " live p99 %.1f ms; GC pause p99 %.1f ms (%d pauses)",
        w.round(),
        w.variant(),
        c.systemMillisPer1000(),
        c.millisPer1000(),
        c.harnessMillisPer1000(),
        100 * c.utilisation(),
        w.live().p99Millis(),
        w.gcPauseP99(),
        w.gcPauses());
  }

  private static JsonObject report(
      Instant startedAt, List<Variant> variants, List<Window> windows) {
    Map<String, ToDoubleFunction<Window>> figures = new LinkedHashMap<>();
    figures.put("systemMillisPer1000", w -> w.cost().systemMillisPer1000());
    for (String p : List.of("Cassandra", "Kafka", "service")) {
      figures.put(p + "MillisPer1000", w -> w.cost().millisPer1000().getOrDefault(p, Double.NaN));
    }
    figures.put("liveP99Millis", w -> w.live().p99Millis());
    figures.put("gcPauseP99Millis", Window::gcPauseP99);
    String first = variants.get(0).name();
    JsonObject ratios = new JsonObject();
    for (Variant v : variants.subList(1, variants.size())) {
      JsonObject of = new JsonObject();
      figures.forEach(
          (name, f) -> {
            double[] perRound = new double[ROUNDS];
            for (int r = 1; r <= ROUNDS; r++) {
              perRound[r - 1] =
                  f.applyAsDouble(of(windows, v.name(), r))
                      / f.applyAsDouble(of(windows, first, r));
            }
            Arrays.sort(perRound);
            double median = perRound[ROUNDS / 2];
            of.put(name, Double.isFinite(median) ? median : null);
          });
      ratios.put(v.name() + "/" + first, of);
    }
    JsonArray rows = new JsonArray();
    windows.forEach(w -> rows.add(w.json()));
    JsonArray vs = new JsonArray();
    variants.forEach(v -> vs.add(v.json()));
    return new JsonObject()
        .put("startedAt", startedAt.toString())
        .put("ratePerSecond", RATE)
        .put("seconds", SECONDS)
        .put("rounds", ROUNDS)
        .put("variants", vs)
        .put("windows", rows)
        .put("medianRatiosToA", ratios);
  }

  private static Window of(List<Window> windows, String variant, int round) {
    return windows.stream()
        .filter(w -> w.variant().equals(variant) && w.round() == round)
        .findFirst()
        .orElseThrow();
  }
}
