package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.cassandra.SchemaScript;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.ambergarden.localrt.NodeJmx;
import io.ambergarden.localrt.Procs;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.DoubleStream;

/**
 * Ingest benchmark ({@code mvn -Pbench}), one run on the same generated events: (a) the raw driver
 * ceiling, (b) the service's Kafka -> Cassandra and HTTP ingest, (c) a naive synchronous consumer,
 * (d) a ThingsBoard-style key-value schema, (e) read latency during (b). Settings: {@link
 * BenchSettings}; results go to {@code .bench-results/<timestamp>/} under the project directory.
 */
public final class IngestBench {
  private static final String KEYSPACE = "amber_bench";

  /**
   * A process at or under this many cores (5 s average) has settled: no compaction burst, no JIT
   * backlog.
   */
  private static final double SETTLED_CORES = 0.3;

  /** The two service heap gauges share one /metrics scrape per sampling tick. */
  private static final long SCRAPE_REUSE_NANOS = 500_000_000L;

  private static final DateTimeFormatter DIR_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final BenchSettings settings;
  private final LocalRuntime runtime;
  private final SecondSampler sampler;
  private final RawWriteLoop.Progress progress =
      (phase, done, total, t0) ->
          System.out.printf(
              "  %-6s %,9d / %,d  %,8.0f events/s%n",
              phase, done, total, done / ((System.nanoTime() - t0) / 1e9));
  private final Map<String, String> serverConfig = new HashMap<>();
  private final AmberConfig base;
  private final long now = System.currentTimeMillis();
  private final List<BenchEvents.Spec> measured;
  private final String measuredPrefix = "dev-" + UUID.randomUUID().toString().substring(0, 6);
  private final List<String> measuredDevices;
  private final CpuLedger ledger;
  private final List<TimeSeries> memory = new ArrayList<>();

  /** What the run saw that the tables do not show, added to the report's notes. */
  private final List<String> observations = new ArrayList<>();

  /** The latency-against-load steps, when they ran; drawn to load-curve.png. */
  private LoadCurvePhase curve;

  /** The steady-load levels, when they ran (amber.bench.steady-seconds > 0). */
  private SteadyLoadPhase steady;

  /** The service's GC pause p99 during the steady-load levels, ms; NaN when not measured. */
  private double steadyGcPauseP99 = Double.NaN;

  /** The service under test while (b) runs, read by the memory sampler. */
  private volatile BenchService service;

  /**
   * Like a pod's fixed heap: the service's memory is bounded by its settings, not by a large
   * default heap.
   */
  static final List<String> SERVICE_JVM = serviceJvm();

  /**
   * -Xms1g -Xmx1g -XX:+UseZGC, then amber.bench.service-jvm (space-separated), e.g. a
   * -XX:StartFlightRecording option.
   */
  private static List<String> serviceJvm() {
    // ZGC as the image runs it (pom.xml, jib entrypoint)
    List<String> options = new ArrayList<>(List.of("-Xms1g", "-Xmx1g", "-XX:+UseZGC"));
    for (String o : BenchSettings.text("service-jvm", "").trim().split("\\s+")) {
      if (!o.isEmpty()) {
        options.add(o);
      }
    }
    return List.copyOf(options);
  }

  private IngestBench(BenchSettings settings, LocalRuntime runtime, SecondSampler sampler) {
    this.settings = settings;
    this.runtime = runtime;
    this.sampler = sampler;
    this.ledger =
        new CpuLedger()
            .process("Cassandra", () -> runtime.cassandra().pid().flatMap(ProcessHandle::of))
            .process("Kafka", () -> runtime.kafka().pid().flatMap(ProcessHandle::of))
            .process("service", () -> Optional.ofNullable(service).map(BenchService::handle))
            .process("harness", () -> Optional.of(ProcessHandle.current()))
            // hidden work of the service: (device, hour) rollups recomputed, each reading the hour
            .counter(HourRollups.COUNTER, this::rollupRecomputes);
    serverConfig.put("cassandra.contact-points", runtime.cassandraContactPoint());
    serverConfig.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    serverConfig.put("cassandra.keyspace", KEYSPACE);
    // device images have their own benchmark (ImageBench); off here, so ingest figures stay
    // comparable
    serverConfig.put("media.enabled", "false");
    // this bench measures ingest; the cost of credentials is measured apart, by AuthCostBench
    serverConfig.put("auth.enabled", "false");
    this.base = ConfigLoader.load(Map.of(), new Properties(), serverConfig);
    this.measured =
        BenchEvents.generate(measuredPrefix, settings.events(), settings.devices(), now, 2);
    this.measuredDevices = measured.stream().map(BenchEvents.Spec::deviceId).distinct().toList();
  }

  public static void main(String[] args) throws Exception {
    BenchSettings settings = BenchSettings.fromSystem();
    Instant startedAt = Instant.now();
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    try (LocalRuntime runtime = new LocalRuntime(options);
        SecondSampler sampler = new SecondSampler()) {
      runtime.start();
      capCompaction(runtime);
      IngestBench bench = new IngestBench(settings, runtime, sampler);
      Figures figures = bench.measureAll();
      BenchReport.Environment env =
          new BenchReport.Environment(
              startedAt,
              Runtime.getRuntime().availableProcessors(),
              System.getProperty("java.version"),
              System.getProperty("java.vm.name"),
              options.cassandraVersion(),
              options.cassandraMemtable().toString(),
              options.kafkaVersion(),
              settings.asMap(),
              BenchSettings.overrides(System.getProperties()));
      List<TimeSeries> latencies = new ArrayList<>(sampler.gauges());
      latencies.removeAll(bench.memory);
      List<TimeSeries> allSeries = new ArrayList<>(sampler.rates());
      allSeries.addAll(latencies);
      BenchReport report =
          report(
              settings,
              env,
              figures,
              allSeries,
              new BenchReport.Resources(
                  bench.ledger.processNames(), bench.ledger.phases(), bench.memory));
      Path dir =
          writeResults(
              options.projectDir().resolve(".bench-results").resolve(DIR_NAME.format(startedAt)),
              report,
              bench.steadyJson(report.json()),
              List.of(
                  new Plot.Panel("Ingest throughput, per second", "events/s", sampler.rates()),
                  new Plot.Panel("Read latency p99 (e), per second", "ms", latencies),
                  new Plot.Panel("Memory", "MiB", bench.memory)));
      if (bench.curve != null) {
        bench.curve.writePng(dir.resolve("load-curve.png"));
      }
      System.out.println();
      System.out.print(report.markdown());
      System.out.println("\nResults: " + dir);
    }
  }

  /** Applies amber.bench.compaction-throughput to the node, if set, and checks it took. */
  private static void capCompaction(LocalRuntime runtime) {
    int cap = BenchSettings.compactionThroughput();
    if (cap < 0) {
      return;
    }
    try (NodeJmx jmx = runtime.cassandra().jmx()) {
      jmx.compactionThroughput(cap);
      int now = jmx.compactionThroughput();
      if (now != cap) {
        throw new IllegalStateException(
            "Cassandra kept compaction at " + now + " MiB/s, not " + cap);
      }
    }
    System.out.printf("Cassandra compaction capped at %d MiB/s%n", cap);
  }

  /**
   * Every phase, in this order: warm-up, (a), (d), the service's phases ({@link #service}), (c),
   * (g).
   */
  private Figures measureAll() throws Exception {
    sampleMemory();
    RawWriteLoop.Result raw;
    RawWriteLoop.Result grouped;
    RawWriteLoop.Result tsKv;
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      // a fresh keyspace per run: the rows, compaction debt and due rollups of earlier runs would
      // load this one
      System.out.println("Dropping and recreating keyspace " + KEYSPACE);
      session.execute(
          SimpleStatement.newInstance("DROP KEYSPACE IF EXISTS " + KEYSPACE)
              .setTimeout(Duration.ofMinutes(2)));
      for (SchemaScript script : SchemaMigrator.scripts(SchemaMigrator.placeholders(base))) {
        script.statements().forEach(session::execute);
      }
      TsKvWriteLoop.createTables(session, KEYSPACE);
      raw = warmUpAndRawCeiling(session);
      grouped = groupedCeiling(session);
      tsKv = thingsBoardStyle(session);
    }
    ServiceFigures service = service();
    HourRollups.leaks(ledger.phases()).forEach(observations::add);
    RawWriteLoop.Result naive = naiveConsumer();
    avroAgainstJson();
    memory.forEach(sampler::stop);
    long rowsPerRun = RawWriteLoop.rowsOf(measured);
    double serviceEps = service.kafkaEventsPerSecond();
    return new Figures(
        raw,
        grouped,
        rowsPerRun,
        serviceEps,
        serviceEps * rowsPerRun / settings.events(),
        settings.httpEvents() / service.httpSeconds(),
        naive,
        tsKv,
        settings.events() / service.produceSeconds(),
        service.reads(),
        service.liveLatency(),
        List.copyOf(observations));
  }

  /**
   * (g) Avro against JSON on a sample of the measured events ({@link AvroJsonPhase}); its figures
   * go to the report's notes. amber.bench.avro-events=0 skips it; {@link AvroJsonBench} runs it
   * alone.
   */
  private void avroAgainstJson() throws Exception {
    int n = Math.min(BenchSettings.setting("avro-events", 100_000), measured.size());
    if (n <= 0) {
      return;
    }
    List<BenchEvents.Spec> sample = measured.subList(0, n);
    CpuLedger.Span cpu = ledger.start("(g) Avro against JSON (decode and consume)");
    List<AvroJsonPhase.Figures> figures =
        AvroJsonPhase.measure(
            runtime.kafkaBootstrap(), sample, BenchSettings.setting("avro-rounds", 5));
    cpu.end(0);
    observations.addAll(AvroJsonPhase.lines(figures, n));
  }

  /**
   * RSS of every process and the service's heap, once a second, in MiB; NaN (no point) while one is
   * down.
   */
  private void sampleMemory() {
    memory.add(sampler.gauge("Cassandra RSS", () -> mib(runtime.cassandra().pid())));
    memory.add(sampler.gauge("Kafka RSS", () -> mib(runtime.kafka().pid())));
    memory.add(
        sampler.gauge(
            "service RSS", () -> mib(Optional.ofNullable(service).map(s -> s.handle().pid()))));
    memory.add(
        sampler.gauge(
            "service heap used", () -> serviceMeter("jvm_memory_used_bytes", "area=\"heap\"")));
    memory.add(
        sampler.gauge(
            "service old gen used",
            () -> serviceMeter("jvm_memory_used_bytes", "id=\"G1 Old Gen\"")));
    memory.add(sampler.gauge("harness RSS", () -> mib(Optional.of(ProcessHandle.current().pid()))));
  }

  private static double mib(Optional<Long> pid) {
    return pid.flatMap(Procs::residentKb).map(kb -> kb / 1024.0).orElse(Double.NaN);
  }

  private double serviceMeter(String name, String labels) {
    return serviceValue(name, labels) / (1024 * 1024);
  }

  private double serviceValue(String name, String labels) {
    String scrape = serviceScrape();
    return scrape.isEmpty() ? Double.NaN : PrometheusText.sum(scrape, name, labels);
  }

  /** A counter of the service under test, from a fresh scrape; empty while no service answers. */
  private OptionalLong serviceCount(String name) {
    BenchService s = service;
    String scrape = s == null ? "" : s.metrics();
    return scrape.contains(name)
        ? OptionalLong.of(Math.round(PrometheusText.sum(scrape, name)))
        : OptionalLong.empty();
  }

  private String lastScrape = "";
  private long lastScrapeNanos;

  /**
   * The service's /metrics, fetched at most once per sampling tick (only the sampler thread calls
   * this).
   */
  private String serviceScrape() {
    BenchService s = service;
    if (s == null) {
      return "";
    }
    long now = System.nanoTime();
    if (lastScrape.isEmpty() || now - lastScrapeNanos > SCRAPE_REUSE_NANOS) {
      lastScrape = s.metrics();
      lastScrapeNanos = now;
    }
    return lastScrape;
  }

  /** The service's hour rollups, as its settings time them. */
  private HourRollups hourRollups(Map<String, String> config) {
    AmberConfig.Rollups r = ConfigLoader.load(System.getenv(), new Properties(), config).rollups();
    return new HourRollups(r.grace().plus(r.markSafety()), ledger, this::rollupRecomputes);
  }

  /** The service's (device, hour) rollup recomputes so far; empty while it cannot be scraped. */
  private OptionalLong rollupRecomputes() {
    return serviceCount("amber_rollup_recomputes_total");
  }

  private void clearRollup(HourRollups rollups, String window, Duration length)
      throws InterruptedException {
    rollups
        .clear(window, length)
        .ifPresent(
            line -> {
              observations.add(line);
              System.out.println("  " + line);
            });
  }

  /**
   * A window with neither reads nor ingest, as long as the (e) window up to 30 s, on either side of
   * it: what the reads cost each process is (e)'s cores less the two windows' mean.
   */
  private void quietWindow(String when) throws InterruptedException {
    CpuLedger.Span quiet = ledger.start("(e) no reads, no ingest, " + when);
    TimeUnit.SECONDS.sleep(Math.min(settings.idleReadSeconds(), 30)); // the measurement window
    quiet.end(0);
  }

  /**
   * Waits, at most settle-seconds, for {@code process} to fall to {@link #SETTLED_CORES} (5 s
   * average): Cassandra compacting after a burst, or the service's JIT still compiling after its
   * warm-up, would load the next phase.
   */
  private void settle(String process, String when) throws InterruptedException {
    // a ledger row of its own: the compaction (or JIT) debt a phase leaves is paid here, and a
    // phase's CPU per event is only complete with the settle that follows it
    CpuLedger.Span cpu = ledger.start("settle " + when);
    double waited =
        ledger.awaitQuiet(
            process,
            SETTLED_CORES,
            Duration.ofSeconds(5),
            Duration.ofSeconds(settings.settleSeconds()));
    cpu.end(0);
    String line =
        String.format(
            "%s: %s took %.0f s to fall to %.2f cores (limit %d s).",
            when, process, waited, SETTLED_CORES, settings.settleSeconds());
    observations.add(line);
    System.out.println("  " + line);
  }

  private RawWriteLoop.Result warmUpAndRawCeiling(CqlSession session) throws InterruptedException {
    RawWriteLoop loop =
        new RawWriteLoop(
            session, KEYSPACE, base.cassandra().typeSalts(), base.cassandra().abnormalSalts());
    System.out.printf("Warm-up: %,d events through the raw loop%n", settings.warmup());
    sampled(
        "warm-up (raw loop)",
        loop::eventsSubmitted,
        () ->
            loop.run(
                BenchEvents.generate("warm", settings.warmup(), settings.devices(), now, 1),
                settings.concurrency(),
                progress));

    settle("Cassandra", "after the warm-up, before (a)");
    System.out.printf(
        "(a) Raw ceiling: %,d events, %,d rows, %d in flight%n",
        settings.events(), RawWriteLoop.rowsOf(measured), settings.concurrency());
    return sampled(
        "(a) raw driver ceiling",
        loop::eventsSubmitted,
        () -> loop.run(measured, settings.concurrency(), progress));
  }

  /**
   * Runs a write loop while its submitted-events counter is sampled per second under {@code label}.
   */
  private RawWriteLoop.Result sampled(
      String label,
      java.util.function.LongSupplier submitted,
      java.util.concurrent.Callable<RawWriteLoop.Result> run)
      throws InterruptedException {
    TimeSeries series = sampler.rate(label, submitted);
    CpuLedger.Span cpu = ledger.start(label);
    try {
      RawWriteLoop.Result result = run.call();
      cpu.end(result.events());
      return result;
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      sampler.stop(series);
    }
  }

  /**
   * (a'): the same rows through the raw driver, batched as the writer batches them: the ceiling of
   * the service's own write path.
   */
  private RawWriteLoop.Result groupedCeiling(CqlSession session) throws InterruptedException {
    GroupedWriteLoop loop = GroupedWriteLoop.asConfigured(session, KEYSPACE, base);
    settle("Cassandra", "after (a), before (a')");
    System.out.printf(
        "(a') Raw driver with the writer's batching: %,d events%n", settings.events());
    return sampled(
        "(a') raw driver, writer's batching",
        loop::eventsSubmitted,
        () -> loop.run(measured, settings.concurrency()));
  }

  private RawWriteLoop.Result thingsBoardStyle(CqlSession session) throws InterruptedException {
    TsKvWriteLoop loop = new TsKvWriteLoop(session, KEYSPACE);
    settle("Cassandra", "after (a'), before (d)");
    System.out.printf(
        "(d) ThingsBoard-style ts_kv_cf: %,d events, %,d rows, %d in flight%n",
        settings.events(), TsKvWriteLoop.rowsOf(measured), settings.concurrency());
    return sampled(
        "(d) ThingsBoard-style schema",
        loop::eventsSubmitted,
        () -> loop.run(measured, settings.concurrency(), progress));
  }

  private record ServiceFigures(
      double produceSeconds,
      double kafkaEventsPerSecond,
      double httpSeconds,
      List<ReadLatencyProbe.Summary> reads,
      Optional<String> liveLatency) {}

  /**
   * The service's settings: one topic with its own group, layered over the bench's -D/env settings.
   */
  private Map<String, String> serviceConfig(String topic) {
    Map<String, String> svc = new HashMap<>(serverConfig);
    svc.put("kafka.topic", topic);
    svc.put("kafka.dlq-topic", topic + ".dlq");
    svc.put("kafka.group-id", topic + "-group");
    svc.put("kafka.consumer.commit-interval", "200ms");
    svc.put("http.port", Integer.toString(settings.httpPort()));
    Map<String, String> known = ConfigLoader.defaults();
    // -Damber.KEY on the bench's command line reaches the service, as AMBER_KEY would
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith("amber.") && known.containsKey(k.substring("amber.".length())))
        .forEach(k -> svc.put(k.substring("amber.".length()), System.getProperty(k)));
    ConfigLoader.load(
        System.getenv(), new Properties(), svc); // fails fast on a bad value, before the JVM starts
    return svc;
  }

  /**
   * (b) at full rate, alone like (a); then (e): reads with no ingest, then while events arrive at
   * half the rate (b) reached; then (f) and the HTTP part. One service process throughout, which
   * first consumes service-warmup events (with reads) so that its JIT has compiled the paths
   * measured afterwards.
   */
  private ServiceFigures service() throws Exception {
    String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    BenchTopics.create(runtime.kafkaBootstrap(), topic, topic + ".dlq");
    String group = topic + "-group";
    Map<String, String> config = serviceConfig(topic);
    int warm = settings.serviceWarmup();
    BenchTopics.produce(
        runtime.kafkaBootstrap(),
        topic,
        BenchEvents.generate(measuredPrefix, "w", warm, settings.devices(), now, 5));
    System.out.printf(
        "Service: its own JVM (%s), warm-up on %,d events with reads%n", SERVICE_JVM, warm);
    Path gcLog = runtime.options().projectDir().resolve("target").resolve("bench-service-gc.log");
    List<String> jvm = new ArrayList<>(SERVICE_JVM);
    jvm.add(GcLog.option(gcLog.toString()));
    try (BenchService app =
        BenchService.start(
            config,
            settings.httpPort(),
            jvm,
            runtime.options().projectDir().resolve("target").resolve("bench-service.log"))) {
      service = app;
      int port = app.port();
      AtomicLong committed = new AtomicLong();
      readsDuring(
          "service warm-up",
          port,
          () ->
              BenchTopics.awaitCommitted(runtime.kafkaBootstrap(), group, topic, warm, committed));
      settle("service", "after the service warm-up (JIT compiling)");
      HourRollups rollups = hourRollups(config);
      // (b) lasts its events at 2,000 a second at most (under a minute on a good day)
      clearRollup(rollups, "(b)", Duration.ofSeconds(60 + settings.events() / 2_000));
      settle("Cassandra", "after the service warm-up, before (b)");

      System.out.printf(
          "(b) Service Kafka -> Cassandra: producing %,d events to %s while the service consumes%n",
          settings.events(), topic);
      String before = app.metrics();
      TimeSeries series = sampler.rate("(b) service Kafka -> Cassandra", committed::get);
      // the running service consumes as the events arrive; the measured window opens once the
      // producer is done
      CompletableFuture<Double> produced =
          CompletableFuture.supplyAsync(
              () -> BenchTopics.produce(runtime.kafkaBootstrap(), topic, measured));
      CpuLedger.Span[] cpu = new CpuLedger.Span[1];
      BenchTopics.Window window =
          BenchTopics.awaitCommitted(
              runtime.kafkaBootstrap(),
              group,
              topic,
              warm,
              settings.events(),
              committed,
              produced::isDone,
              () -> cpu[0] = ledger.start("(b) service Kafka -> Cassandra, full rate"));
      double produceSeconds = produced.get(1, TimeUnit.MINUTES);
      cpu[0].end(window.records());
      sampler.stop(series);
      double kafkaEventsPerSecond = window.perSecond();
      String counterWrites = counterWritesPer1000(before, app.metrics(), settings.events());

      List<ReadLatencyProbe.Summary> reads = new ArrayList<>();
      settle("Cassandra", "after (b) at full rate, before (e)");
      if (settings.readRate() > 0 && settings.idleReadSeconds() > 0) {
        clearRollup(rollups, "(e)", Duration.ofSeconds(settings.idleReadSeconds() + 2 * 30 + 30));
        System.out.printf("(e) Reads with no ingest: %d s%n", settings.idleReadSeconds());
        // the same node with no reads before and after: what the reads cost is the difference from
        // the two windows' mean, which cancels a steady decay of background work
        quietWindow("before");
        reads.addAll(
            readsDuring(
                "no ingest",
                port,
                () -> {
                  CpuLedger.Span idle = ledger.start("(e) reads with no ingest");
                  TimeUnit.SECONDS.sleep(settings.idleReadSeconds()); // the measurement window
                  idle.end(0);
                }));
        quietWindow("after");
      }
      // the topic offset the next phase's events start at
      long next = warm + settings.events();
      if (settings.halfRateSeconds() > 0) {
        HalfRate withReads =
            halfRate(
                topic,
                port,
                next,
                kafkaEventsPerSecond / 2,
                committed,
                settings.halfRateSeconds(),
                true);
        reads.addAll(withReads.reads());
        next += withReads.count();
        int cpuSeconds = BenchSettings.setting("half-rate-cpu-seconds", 20);
        if (cpuSeconds > 0) {
          settle("Cassandra", "after (b) at half rate with reads, before it without");
          next +=
              halfRate(topic, port, next, kafkaEventsPerSecond / 2, committed, cpuSeconds, false)
                  .count();
        }
      }
      SoakPhase.ReadsDuring withReads =
          (condition, load) -> readsDuring(condition, port, load::run);
      int curveSeconds = BenchSettings.setting("curve-seconds", 30);
      if (curveSeconds > 0) {
        settle("Cassandra", "before the load curve");
        LoadCurvePhase phase =
            new LoadCurvePhase(runtime, topic, port, measuredPrefix, settings.devices());
        next = phase.run(next, kafkaEventsPerSecond, committed, curveSeconds, withReads);
        observations.addAll(phase.lines());
        curve = phase;
      }
      int steadySeconds = BenchSettings.setting("steady-seconds", 60);
      if (steadySeconds > 0) {
        settle("Cassandra", "before the steady-load levels");
        SteadyLoadPhase phase =
            new SteadyLoadPhase(
                runtime, topic, port, measuredPrefix, settings.devices(), ledger, rollups);
        Instant steadyFrom = Instant.now();
        double steadyFullRate = steadyFullRate(kafkaEventsPerSecond);
        next =
            phase.run(
                next,
                steadyFullRate,
                committed,
                steadySeconds,
                BenchSettings.setting("steady-read-seconds", 60),
                withReads);
        steadyGcPauseP99 =
            GcLog.percentile(
                GcLog.pausesMillis(Files.readAllLines(gcLog), steadyFrom, Instant.now()), 99);
        observations.addAll(phase.lines());
        observations.add(
            String.format("steady load: service GC pause p99 %.1f ms", steadyGcPauseP99));
        steady = phase;
      }
      // after the levels, so that a run with a soak measures them on the same keyspace as one
      // without
      int soakSeconds = BenchSettings.soakSeconds();
      if (soakSeconds > 0) {
        clearRollup(rollups, "the soak", Duration.ofSeconds(soakSeconds + 60L));
        SoakPhase soak =
            new SoakPhase(
                runtime, topic, measuredPrefix, settings.devices(), KEYSPACE, app::metrics, ledger);
        next = soak.run(next, kafkaEventsPerSecond / 2, committed, soakSeconds, withReads);
        observations.addAll(soak.lines());
      }

      Optional<String> liveLatency = Optional.empty();
      if (!"false".equals(config.get("live.enabled"))) {
        System.out.println(
            "(f) Ingest-to-live latency: 500 events at 50/s, produced to Kafka, timed to WebSocket arrival");
        LiveLatencyProbe.Summary live =
            LiveLatencyProbe.measure(runtime.kafkaBootstrap(), topic, port, 500, 50);
        liveLatency =
            Optional.of(
                String.format(
                    "p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d events"
                        + " (Kafka produce -> consumer -> Cassandra -> WebSocket); counter writes in (b): %s",
                    live.p50Millis(),
                    live.p99Millis(),
                    live.maxMillis(),
                    live.count(),
                    counterWrites));
      }

      System.out.printf(
          "(b) Service HTTP ingest (kafka mode, 202 after broker ack): %,d events%n",
          settings.httpEvents());
      AtomicLong accepted = new AtomicLong();
      TimeSeries httpSeries = sampler.rate("(b) service HTTP ingest", accepted::get);
      double httpSeconds =
          http(
              port,
              BenchEvents.generate("http", settings.httpEvents(), settings.devices(), now, 3),
              accepted);
      sampler.stop(httpSeries);
      return new ServiceFigures(
          produceSeconds, kafkaEventsPerSecond, httpSeconds, reads, liveLatency);
    } finally {
      service = null;
    }
  }

  private interface Load {
    void run() throws Exception;
  }

  /**
   * Runs {@code load} while (e) reads at the configured rate; the summaries are labelled {@code
   * condition}.
   */
  private List<ReadLatencyProbe.Summary> readsDuring(String condition, int port, Load load)
      throws Exception {
    ReadLatencyProbe probe = new ReadLatencyProbe(port, measuredDevices);
    List<TimeSeries> latencySeries = new ArrayList<>();
    if (settings.readRate() > 0) {
      probe.start(settings.readRate());
      probe
          .endpoints()
          .forEach(
              e ->
                  latencySeries.add(
                      sampler.gauge(
                          "(e) p99 " + e.name() + ", " + condition, e::intervalP99Millis)));
    }
    BenchService s = service;
    ReadStages stages = s == null || settings.readRate() <= 0 ? null : new ReadStages(s.metrics());
    RunQueueWait.Window contention = RunQueueWait.system().start(ledger);
    try {
      load.run();
    } finally {
      probe.close();
      latencySeries.forEach(sampler::stop);
    }
    List<String> lines = new ArrayList<>();
    if (stages != null) {
      lines.add(stages.line(condition, s.metrics()));
    }
    lines.add(contention.line(condition));
    for (String line : lines) {
      if (!line.isEmpty()) {
        System.out.println(line);
        observations.add(line);
      }
    }
    return settings.readRate() > 0 ? probe.summaries(condition) : List.of();
  }

  /**
   * New events for the measured devices, produced at {@code rate} per second for half-rate-seconds
   * while the running service consumes them and (e) reads: the read latency the target is
   * defined at.
   */
  private HalfRate halfRate(
      String topic,
      int port,
      long base,
      double rate,
      AtomicLong committed,
      int seconds,
      boolean withReads)
      throws Exception {
    int count = (int) (rate * seconds);
    List<BenchEvents.Spec> events =
        BenchEvents.generate(
            measuredPrefix,
            withReads ? "h" : "q",
            count,
            settings.devices(),
            System.currentTimeMillis(),
            6);
    String label =
        withReads ? "(b) service at half rate (+ reads)" : "(b) service at half rate, no reads";
    System.out.printf("%s: %,d events at %,.0f/s%n", label, count, rate);
    Load load =
        () -> {
          TimeSeries series =
              sampler.rate(withReads ? "(b) service at half rate" : label, committed::get);
          AtomicLong acked = new AtomicLong();
          TimeSeries lag =
              sampler.gauge(
                  "records produced, not committed",
                  () -> Math.max(0, acked.get() - (committed.get() - base)));
          TimeSeries limit =
              sampler.gauge(
                  "writer statement limit", () -> serviceValue("amber_writer_statement_limit", ""));
          CpuLedger.Span cpu = ledger.start(label);
          // committed offsets are polled while the producer runs, so the lag is seen as it grows
          CompletableFuture<Void> commits =
              CompletableFuture.runAsync(
                  () -> {
                    try {
                      BenchTopics.awaitAllCommitted(
                          runtime.kafkaBootstrap(),
                          topic + "-group",
                          topic,
                          base,
                          count,
                          committed);
                    } catch (Exception e) {
                      throw new CompletionException(e);
                    }
                  });
          BenchTopics.produceAtRate(runtime.kafkaBootstrap(), topic, events, rate, acked);
          long producedAt = System.nanoTime();
          commits.get(20, TimeUnit.MINUTES);
          double drainSeconds = (System.nanoTime() - producedAt) / 1e9;
          cpu.end(count);
          List.of(series, lag, limit).forEach(sampler::stop);
          observations.add(
              String.format(
                  "%s: writer statement limit mean %.0f (min %.0f, max %.0f); records produced but"
                      + " not committed at most %,.0f; all committed %.1f s after the producer"
                      + " finished",
                  label,
                  stat(limit, DoubleStream::average),
                  stat(limit, DoubleStream::min),
                  stat(limit, DoubleStream::max),
                  stat(lag, DoubleStream::max),
                  drainSeconds));
        };
    if (!withReads) {
      load.run();
      return new HalfRate(List.of(), count);
    }
    String condition = String.format("(b) at half rate, %,.0f events/s", rate);
    return new HalfRate(readsDuring(condition, port, load), count);
  }

  private record HalfRate(List<ReadLatencyProbe.Summary> reads, int count) {}

  private static double stat(TimeSeries series, Function<DoubleStream, OptionalDouble> f) {
    return f.apply(
            series.points().stream()
                .mapToDouble(TimeSeries.Point::value)
                .filter(v -> !Double.isNaN(v)))
        .orElse(Double.NaN);
  }

  /** (c) on its own topic holding the same events, after the service has stopped. */
  private RawWriteLoop.Result naiveConsumer() throws Exception {
    String topic = "bench-naive-" + UUID.randomUUID().toString().substring(0, 8);
    BenchTopics.create(runtime.kafkaBootstrap(), topic);
    System.out.printf("Producing %,d events to %s%n", settings.events(), topic);
    BenchTopics.produce(runtime.kafkaBootstrap(), topic, measured);
    settle("Cassandra", "after (b) HTTP, before (c)");
    System.out.printf(
        "(c) Naive consumer (sync inserts, commitSync per poll): up to %,d events or %d s%n",
        settings.events(), settings.naiveSeconds());
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      NaiveConsumerLoop loop = new NaiveConsumerLoop(session, KEYSPACE);
      return sampled(
          "(c) naive consumer",
          loop::eventsDone,
          () ->
              loop.run(
                  runtime.kafkaBootstrap(),
                  topic,
                  settings.events(),
                  Duration.ofSeconds(settings.naiveSeconds()),
                  progress));
    }
  }

  /**
   * What one run measured; the events/s and rows/s of (b) are derived from its committed-offset
   * timing.
   */
  record Figures(
      RawWriteLoop.Result raw,
      RawWriteLoop.Result grouped,
      long rawRowsPerRun,
      double serviceEventsPerSecond,
      double serviceRowsPerSecond,
      double httpEventsPerSecond,
      RawWriteLoop.Result naive,
      RawWriteLoop.Result tsKv,
      double produceEventsPerSecond,
      List<ReadLatencyProbe.Summary> reads,
      Optional<String> liveLatency,
      List<String> observations) {}

  static BenchReport report(
      BenchSettings s,
      BenchReport.Environment env,
      Figures f,
      List<TimeSeries> series,
      BenchReport.Resources resources) {
    List<BenchReport.Measurement> m =
        List.of(
            new BenchReport.Measurement(
                "a",
                "(a) raw driver ceiling, " + s.concurrency() + " in flight",
                f.raw().eventsPerSecond(),
                f.raw().rowsPerSecond(),
                String.format("%.2f rows/event", (double) f.rawRowsPerRun() / f.raw().events())),
            new BenchReport.Measurement(
                "a-grouped",
                "(a') raw driver, the writer's batching, " + s.concurrency() + " in flight",
                f.grouped().eventsPerSecond(),
                f.grouped().rowsPerSecond(),
                "same rows as (a): partition batches and replica-grouped single rows, latest once per device"
                    + " per write batch"),
            new BenchReport.Measurement(
                "b-kafka",
                "(b) service Kafka -> Cassandra",
                f.serviceEventsPerSecond(),
                f.serviceRowsPerSecond(),
                "committed offsets, from 10% and the producer done to 100%; rows as in (a)"),
            new BenchReport.Measurement(
                "b-http",
                "(b) service HTTP ingest (to Kafka)",
                f.httpEventsPerSecond(),
                Double.NaN,
                "NDJSON, 500 per request, 4 clients; 202 after broker ack"),
            new BenchReport.Measurement(
                "c",
                "(c) naive consumer, sync inserts",
                f.naive().eventsPerSecond(),
                f.naive().rowsPerSecond(),
                String.format(
                    "detail + latest; %,d events in %.0f s",
                    f.naive().events(), f.naive().seconds())),
            new BenchReport.Measurement(
                "d",
                "(d) ThingsBoard-style ts_kv_cf, " + s.concurrency() + " in flight",
                f.tsKv().eventsPerSecond(),
                f.tsKv().rowsPerSecond(),
                String.format("%.2f rows/event", (double) f.tsKv().rows() / f.tsKv().events())),
            new BenchReport.Measurement(
                "produce",
                "producer, for reference",
                f.produceEventsPerSecond(),
                Double.NaN,
                "acks=all, idempotent, lz4"));
    List<BenchReport.Ratio> ratios =
        List.of(
            BenchReport.ratio(
                "(b) service / (a) raw ceiling, rows/s",
                f.serviceRowsPerSecond(),
                f.raw().rowsPerSecond()),
            BenchReport.ratio(
                "(b) service / (a') raw driver with the writer's batching, events/s",
                f.serviceEventsPerSecond(),
                f.grouped().eventsPerSecond()),
            BenchReport.ratio(
                "(b) service / (c) naive consumer, events/s",
                f.serviceEventsPerSecond(),
                f.naive().eventsPerSecond()),
            BenchReport.ratio(
                "(b) service / (d) ThingsBoard-style schema, events/s",
                f.serviceEventsPerSecond(),
                f.tsKv().eventsPerSecond()));
    List<String> notes =
        new ArrayList<>(
            List.of(
                "Phases run in this order: warm-up, (a), (a'), (d), service warm-up (with reads), (b) at full rate, (e) with no "
                    + "ingest (between two windows with no reads either), (b) at half the full rate with (e), the load curve (0-100% of "
                    + "the full rate), the steady-load levels, the soak (when asked for), (f), (b) HTTP, (c); one Cassandra node and one Kafka "
                    + "broker, on the same cores as the harness and the service.",
                "The service runs in its own JVM ("
                    + String.join(" ", SERVICE_JVM)
                    + ", configured by AMBER_* variables "
                    + "as in a pod), started once: it consumes service-warmup events while (e) reads, so that its JIT has "
                    + "compiled the measured paths, then the measured events from the same topic.",
                "CPU per phase: the kernel's CPU time of each process over the phase's wall time. The harness JVM runs the "
                    + "load: the write loop in (a) and (d), the committed-offset poller in (b) (whose window opens once "
                    + "the producer is done; the service consumes while the events are produced), the read probe in (e), "
                    + "the paced producer at half rate, the naive consumer in (c).",
                "Memory: RSS of each process, and the service's heap (all used, and the old generation, from its own "
                    + "/metrics), sampled once a second over the whole run. The service's queues are bounded by its "
                    + "settings (records in flight, writes in flight, pending counter cells, live client buffers).",
                "(b) at full rate runs alone, as (a) and (d) do; (e) reads at "
                    + s.readRate()
                    + " req/s per endpoint "
                    + "with no ingest and at half the full rate, the condition of the read target. (c) runs last, on the "
                    + "warmest node, which favours it in the service / naive ratio.",
                "(b) rows/s counts the rows (a) writes per event; the service also writes counter updates and rollup "
                    + "marks, not counted here.",
                String.format(
                    "(c) is timed from its first non-empty poll and stops after %d s or all events, whichever "
                        + "comes first.",
                    s.naiveSeconds()),
                "(d) writes ts_kv_cf (5 keys per event) and ts_kv_partitions_cf (the first time each entity, key and month "
                    + "is seen); ThingsBoard's ts_kv_latest_cf is left out.",
                "(e) sends at a fixed rate per endpoint to random devices of the measured set; latency is from send to the "
                    + "last byte; a 'skipped' tick found "
                    + ReadLatencyProbe.MAX_IN_FLIGHT
                    + " requests still open.",
                "(f) ingest-to-live WebSocket latency: " + f.liveLatency().orElse("not measured."),
                "Per-second throughput: (a) and (d) count events whose rows were all submitted, (b) Kafka the committed "
                    + "offsets, which advance in steps; producer phases are not plotted."));
    notes.addAll(f.observations());
    return new BenchReport(env, m, ratios, f.reads(), notes, series, resources);
  }

  /**
   * The report's JSON with the steady-load levels and issue 31's targets added when they ran; the
   * two cost targets compare with the run named by amber.bench.baseline (a results.json path).
   */
  JsonObject steadyJson(JsonObject json) throws IOException {
    if (steady == null) {
      return json;
    }
    String baselinePath = BenchSettings.text("baseline", "");
    JsonArray baseline =
        baselinePath.isEmpty()
            ? null
            : new JsonObject(Files.readString(Path.of(baselinePath))).getJsonArray("steady");
    List<Target> targets =
        SteadyTargets.of(
            steady.steps(),
            baseline,
            steadyGcPauseP99,
            measured(json, "b-kafka") / measured(json, "a-grouped"));
    return json.put("steady", steady.json())
        .put("targets", SteadyTargets.json(targets))
        .put("latencyFloors", LatencyFloors.json(LatencyFloors.of(steady.steps())));
  }

  /**
   * The rate the steady levels are fractions of: this run's (b), or amber.bench.steady-full-rate
   * when set, so that two runs (an alternation of two codes) load the same rates whatever the day's
   * (b) came out at, and the cost targets' "at the baseline's 50% rate" is measured, not
   * interpolated.
   */
  static double steadyFullRate(double measuredFullRate) {
    int fixed = BenchSettings.setting("steady-full-rate", 0);
    if (fixed < 0) {
      throw new IllegalArgumentException(
          "amber.bench.steady-full-rate must be 0 (off) or positive");
    }
    if (fixed > 0) {
      System.out.printf(
          "Steady levels: fractions of amber.bench.steady-full-rate %,d events/s (this run's (b):"
              + " %,.0f)%n",
          fixed, measuredFullRate);
      return fixed;
    }
    return measuredFullRate;
  }

  /** A measurement's events/s from the report's JSON; NaN when the run did not measure it. */
  private static double measured(JsonObject json, String id) {
    JsonArray rows = json.getJsonArray("measurements", new JsonArray());
    for (int i = 0; i < rows.size(); i++) {
      JsonObject row = rows.getJsonObject(i);
      if (id.equals(row.getString("id")) && row.getDouble("eventsPerSecond") != null) {
        return row.getDouble("eventsPerSecond");
      }
    }
    return Double.NaN;
  }

  static Path writeResults(Path dir, BenchReport report, JsonObject json, List<Plot.Panel> panels)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), report.markdown());
    Files.writeString(dir.resolve("results.json"), json.encodePrettily() + "\n");
    Plot.writePng(
        Plot.render(
            "Amber Garden ingest benchmark",
            "time since the first phase started (s)",
            panels,
            1400,
            1200),
        dir.resolve(BenchReport.PLOT_FILE));
    return dir;
  }

  /**
   * Counter statements and cell updates per 1000 events of (b), from the service's meters before
   * and after.
   */
  static String counterWritesPer1000(String before, String after, long events) {
    double statements =
        PrometheusText.sum(after, "amber_counter_statements_total")
            - PrometheusText.sum(before, "amber_counter_statements_total");
    double updates =
        PrometheusText.sum(after, "amber_counter_updates_total")
            - PrometheusText.sum(before, "amber_counter_updates_total");
    return String.format(
        "%.0f counter statements and %.0f counter cell updates per 1000 events",
        statements * 1000 / events, updates * 1000 / events);
  }

  static double http(int port, List<BenchEvents.Spec> events, AtomicLong acceptedOut)
      throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/events");
    int batch = 500;
    List<byte[]> bodies = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < events.size(); i += batch) {
      StringBuilder sb = new StringBuilder();
      List<BenchEvents.Spec> chunk = events.subList(i, Math.min(events.size(), i + batch));
      for (BenchEvents.Spec e : chunk) {
        sb.append(new String(e.json(), StandardCharsets.UTF_8)).append('\n');
      }
      bodies.add(sb.toString().getBytes(StandardCharsets.UTF_8));
      sizes.add(chunk.size());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    long t0 = System.nanoTime();
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < bodies.size(); i++) {
        byte[] body = bodies.get(i);
        int size = sizes.get(i);
        results.add(
            pool.submit(
                () -> {
                  for (int attempt = 0; ; attempt++) {
                    HttpResponse<String> r =
                        client.send(
                            HttpRequest.newBuilder(uri)
                                .header("Content-Type", "application/x-ndjson")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 202) {
                      acceptedOut.addAndGet(size);
                    }
                    if (r.statusCode() == 202 || attempt > 20) {
                      return r.statusCode();
                    }
                  }
                }));
      }
      for (Future<Integer> f : results) {
        if (f.get() != 202) {
          throw new IOException("HTTP ingest answered " + f.get());
        }
      }
    } finally {
      pool.shutdown();
    }
    return (System.nanoTime() - t0) / 1e9;
  }
}
