package io.ambergarden.bench;

import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.ambergarden.localrt.Ports;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What counters cost: three instances on one Cassandra and Kafka (each its own JVM and keyspace):
 * counters off, counters without reconciliation (journal and increments only) and reconciled
 * counters, fed the same steady load in rotating phases so all see the same background. Each phase
 * posts {@link #RATE} events/s for {@link #PHASE}, all in one closed hour of fresh devices ({@link
 * #EVENTS_PER_DEVICE_HOUR} events per device-hour, as 1M devices at 50k events/s), then waits until
 * the phase's work is done: its hour rolled up, the count journal applied (totals equal to the
 * events sent) and, when reconciled, the hour exact (exactThrough past it). The CPU of the service,
 * Cassandra and Kafka over the whole phase, less their idle floor, per 1000 events; the differences
 * between the modes are what the journal and increments, and what the reconciliation, cost. {@code
 * mvn -Pbench -Dbench.main=io.ambergarden.bench.CounterCostBench}.
 */
public final class CounterCostBench {
  static final int RATE = Integer.getInteger("bench.counters.rate", 1000);
  static final int BATCH = 50;

  /**
   * 200 is 1M devices at 50k events/s; a few per device-hour is the high-cardinality shape, where
   * increments of one device barely merge within a journal step.
   */
  static final int EVENTS_PER_DEVICE_HOUR =
      Integer.getInteger("bench.counters.events-per-device-hour", 200);

  static final int ROUNDS = Integer.getInteger("bench.counters.rounds", 3);
  static final Duration PHASE =
      Duration.ofSeconds(Integer.getInteger("bench.counters.phase-seconds", 60));
  static final Duration IDLE = Duration.ofSeconds(30);

  /** Load, drain, then idle up to this: the same wall time for every phase of every mode. */
  static final Duration PHASE_LENGTH = PHASE.plusSeconds(45);

  static final Duration DRAIN_DEADLINE = Duration.ofMinutes(6);
  static final int SAMPLED_DEVICES = 5;
  static final List<String> MEASURED = List.of("service", "Cassandra", "Kafka");

  /** Devices are new in every run: an earlier run's rows would make a phase look done at once. */
  static final String RUN = Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** What an instance runs: no counters, approximate counters only, or reconciled ones. */
  enum Mode {
    OFF("counters off", false, false),
    APPROX("approximate only", true, false),
    EXACT("reconciled", true, true);

    final String label;
    final boolean counters;
    final boolean reconcile;

    Mode(String label, boolean counters, boolean reconcile) {
      this.label = label;
      this.counters = counters;
      this.reconcile = reconcile;
    }

    String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One instance and its own CPU ledger (the same servers, its own service process). */
  private record Instance(Mode mode, BenchService service, CpuLedger ledger) {
    String name() {
      return mode.label;
    }

    boolean counters() {
      return mode.counters;
    }
  }

  /** One measured phase: events accepted, CPU ms per 1000 events per process, drain seconds. */
  record Result(long events, Map<String, Double> msPer1000, double drainSeconds) {
    double total() {
      return msPer1000.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  public static void main(String[] args) throws Exception {
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      CounterCostBench bench = new CounterCostBench();
      List<Instance> instances = new ArrayList<>();
      try {
        for (String m : System.getProperty("bench.counters.modes", "off,approx,exact").split(",")) {
          instances.add(
              bench.start(
                  runtime,
                  Mode.valueOf(m.trim().toUpperCase(java.util.Locale.ROOT)),
                  options.baseDir()));
        }
        bench.run(instances);
      } finally {
        for (Instance i : instances) {
          i.service().close();
        }
      }
    }
    System.exit(0);
  }

  private Instance start(LocalRuntime runtime, Mode mode, Path base) throws Exception {
    int port = Ports.free();
    String topic = "countercost-" + mode.key() + "-" + System.nanoTime();
    // a keyspace each: the rollup shard leases are per keyspace
    Map<String, String> cfg =
        BenchService.directModeConfig(
            runtime.cassandraContactPoint(),
            runtime.kafkaBootstrap(),
            "amber_countercost_" + mode.key(),
            topic,
            port);
    cfg.put("auth.enabled", "false");
    cfg.put("media.enabled", "false");
    cfg.put("counters.enabled", Boolean.toString(mode.counters));
    cfg.put("counters.reconcile", Boolean.toString(mode.reconcile));
    // the phase's hour is closed: its marks are late, rolled up at the end of this window; shorter
    // buckets than the defaults so a phase's work is done within its fixed length
    cfg.put("rollup.late-window", "10s");
    cfg.put("rollup.mark-bucket", "5s");
    cfg.put("rollup.mark-safety", "10s");
    System.out.printf("starting the service (%s) on %d%n", mode.label, port);
    BenchService service =
        BenchService.start(
            cfg,
            port,
            List.of("-Xmx768m"),
            base.resolve("countercost-service-" + mode.key() + ".log"));
    CpuLedger ledger =
        new CpuLedger()
            .process("service", () -> Optional.of(service.handle()))
            .process("Cassandra", () -> runtime.cassandra().pid().flatMap(ProcessHandle::of))
            .process("Kafka", () -> runtime.kafka().pid().flatMap(ProcessHandle::of));
    return new Instance(mode, service, ledger);
  }

  private void run(List<Instance> instances) throws Exception {
    System.out.println("warming up");
    Map<String, Double> none = new HashMap<>();
    for (Instance i : instances) {
      phase(i, "warm", none);
    }
    Map<String, Double> floor = idleFloor(instances);
    System.out.printf("idle floor (cores): %s%n", floor);
    Map<Mode, List<Result>> results = new java.util.EnumMap<>(Mode.class);
    for (int round = 0; round < ROUNDS; round++) {
      // rotate the order, so no mode always follows the same one
      for (int k = 0; k < instances.size(); k++) {
        Instance i = instances.get((round + k) % instances.size());
        results.computeIfAbsent(i.mode(), m -> new ArrayList<>()).add(phase(i, "r" + round, floor));
      }
      System.out.printf(
          "round %d: CPU ms per 1000 events %s%n",
          round + 1,
          results.entrySet().stream()
              .map(e -> e.getKey().label + " " + String.format("%.1f", last(e.getValue()).total()))
              .toList());
    }
    report(results);
  }

  private static Result last(List<Result> l) {
    return l.get(l.size() - 1);
  }

  /**
   * Cores each process uses with every instance up and no load (subtracted from every phase); the
   * servers under "Cassandra" and "Kafka", each instance under "service-&lt;mode&gt;".
   */
  private Map<String, Double> idleFloor(List<Instance> instances) throws InterruptedException {
    CpuLedger all = new CpuLedger();
    for (Instance i : instances) {
      all.process("service-" + i.mode().key(), () -> Optional.of(i.service().handle()));
    }
    CpuLedger.Span servers = instances.get(0).ledger().start("idle");
    CpuLedger.Span services = all.start("idle");
    TimeUnit.NANOSECONDS.sleep(IDLE.toNanos()); // the idle window being measured
    CpuLedger.Phase s = servers.end(0);
    CpuLedger.Phase v = services.end(0);
    Map<String, Double> floor = new LinkedHashMap<>();
    floor.put("Cassandra", s.cores("Cassandra"));
    floor.put("Kafka", s.cores("Kafka"));
    for (Instance i : instances) {
      floor.put("service-" + i.mode().key(), v.cores("service-" + i.mode().key()));
    }
    return floor;
  }

  private Result phase(Instance target, String label, Map<String, Double> floor) throws Exception {
    String prefix = "cc-" + RUN + "-" + target.mode().key() + "-" + label;
    int devices = Math.max(1, (int) (RATE * PHASE.toSeconds() / EVENTS_PER_DEVICE_HOUR));
    long hour = TimeBuckets.hourOf(System.currentTimeMillis() - 2 * TimeBuckets.HOUR);
    List<BenchEvents.Spec> events =
        BenchEvents.generate(
            prefix, (int) (RATE * PHASE.toSeconds()), devices, 0, label.hashCode());
    CpuLedger.Span span = target.ledger().start(prefix);
    long accepted = post(target, events, hour);
    long loadEnd = System.nanoTime();
    Map<String, Long> sent = new HashMap<>();
    events.forEach(e -> sent.merge(e.deviceId(), 1L, Long::sum));
    awaitDone(target, sent, hour);
    double drain = (System.nanoTime() - loadEnd) / 1e9;
    // every phase lasts as long, so each process's idle floor weighs the same in every mode
    long end = span.startNanos() + PHASE_LENGTH.toNanos();
    if (System.nanoTime() > end) {
      System.out.printf("  %s took longer than %s%n", prefix, PHASE_LENGTH);
    }
    TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime())); // the rest of the phase
    CpuLedger.Phase p = span.end(accepted);
    Map<String, Double> ms = new LinkedHashMap<>();
    for (String process : MEASURED) {
      String floorKey = process.equals("service") ? "service-" + target.mode().key() : process;
      double cpu =
          p.cpuSeconds().get(process) - floor.getOrDefault(floorKey, 0.0) * p.wallSeconds();
      ms.put(process, cpu * 1e6 / accepted);
    }
    System.out.printf(
        "  %s %s: %d events in %.0f s (drain %.0f s), CPU ms/1000 events %s%n",
        target.name(), label, accepted, p.wallSeconds(), drain, ms);
    return new Result(accepted, ms, drain);
  }

  /**
   * Posts the events in batches of {@link #BATCH} at {@link #RATE} events/s, each moved into {@code
   * hour} (spread over it), at most 32 requests in flight; returns the events accepted.
   */
  private long post(Instance target, List<BenchEvents.Spec> events, long hour) throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    Semaphore inFlight = new Semaphore(32);
    AtomicLong accepted = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    long periodNanos = 1_000_000_000L * BATCH / RATE;
    int batches = (events.size() + BATCH - 1) / BATCH;
    AtomicLong next = new AtomicLong();
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(batches);
    URI uri = URI.create("http://127.0.0.1:" + target.service().port() + "/api/v1/events");
    timer.scheduleAtFixedRate(
        () -> {
          int b = (int) next.getAndIncrement();
          if (b >= batches) {
            return;
          }
          byte[] body =
              body(events.subList(b * BATCH, Math.min(events.size(), (b + 1) * BATCH)), hour, b);
          inFlight.acquireUninterruptibly();
          http.sendAsync(
                  HttpRequest.newBuilder(uri)
                      .timeout(Duration.ofSeconds(30))
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .whenComplete(
                  (r, err) -> {
                    inFlight.release();
                    if (err == null && r.statusCode() == 202) {
                      accepted.addAndGet(Math.min(BATCH, events.size() - b * BATCH));
                    } else {
                      refused.incrementAndGet();
                    }
                    done.countDown();
                  });
        },
        0,
        periodNanos,
        TimeUnit.NANOSECONDS);
    done.await(PHASE.toSeconds() * 4, TimeUnit.SECONDS);
    timer.shutdownNow();
    if (refused.get() > 0) {
      throw new IllegalStateException(refused.get() + " posts not accepted: the load is too high");
    }
    return accepted.get();
  }

  /** The batch as a JSON array, each event's ts spread over the hour. */
  private static byte[] body(List<BenchEvents.Spec> batch, long hour, int batchIndex) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(batch.size() * 256);
    out.write('[');
    for (int i = 0; i < batch.size(); i++) {
      BenchEvents.Spec e = batch.get(i);
      long ts = hour + Math.floorMod((long) batchIndex * BATCH + i, TimeBuckets.HOUR);
      BenchEvents.Spec moved =
          new BenchEvents.Spec(
              e.deviceId(),
              e.deviceType(),
              ts,
              e.eventId(),
              e.status(),
              e.code(),
              e.temperature(),
              e.vibration(),
              e.current());
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(moved.json());
    }
    out.write(']');
    return out.toByteArray();
  }

  /**
   * Until the sampled devices' hour is rolled up with every event and, with counters on, their
   * counters are exact through the hour and equal to what was sent.
   */
  private void awaitDone(Instance target, Map<String, Long> sent, long hour) throws Exception {
    List<String> sample = new ArrayList<>(sent.keySet()).subList(0, SAMPLED_DEVICES);
    long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
    for (String device : sample) {
      long expected = sent.get(device);
      while (!done(target, device, expected, hour)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              target.name()
                  + ": "
                  + device
                  + " not rolled up and counted within "
                  + DRAIN_DEADLINE);
        }
        TimeUnit.MILLISECONDS.sleep(500); // polls the API with a deadline
      }
    }
  }

  private boolean done(Instance target, String device, long expected, long hour) throws Exception {
    HttpResponse<String> r =
        target
            .service()
            .get(
                "/api/v1/devices/"
                    + device
                    + "/rollups?from="
                    + hour
                    + "&to="
                    + (hour + TimeBuckets.HOUR));
    if (r.statusCode() != 200) {
      return false;
    }
    JsonArray items = new JsonObject(r.body()).getJsonArray("items");
    if (items.isEmpty()
        || items
                .getJsonObject(0)
                .getJsonObject("metrics")
                .getJsonObject("temperature")
                .getLong("count")
            != expected) {
      return false;
    }
    if (!target.counters()) {
      return true;
    }
    JsonObject c =
        new JsonObject(target.service().get("/api/v1/devices/" + device + "/counters").body());
    Long exactThrough = c.getLong("exactThrough");
    boolean exact =
        !target.mode().reconcile
            || (exactThrough != null && exactThrough >= hour + TimeBuckets.HOUR);
    // approximate counts promise at least the acknowledged events, not equality (a retried count
    // record counts twice until its hour is reconciled)
    long total = c.getLong("total");
    return exact && (target.mode().reconcile ? total == expected : total >= expected);
  }

  private static void report(Map<Mode, List<Result>> results) {
    System.out.println();
    System.out.printf(
        "CPU ms per 1000 events (idle floor subtracted), %d events/s, %d events per device-hour,"
            + " median of %d rounds:%n",
        RATE, EVENTS_PER_DEVICE_HOUR, ROUNDS);
    System.out.printf("%-12s", "process");
    results.keySet().forEach(m -> System.out.printf(" %18s", m.label));
    System.out.println();
    for (String p : MEASURED) {
      System.out.printf("%-12s", p);
      results
          .values()
          .forEach(
              l ->
                  System.out.printf(
                      " %18.1f", median(l.stream().mapToDouble(r -> r.msPer1000().get(p)))));
      System.out.println();
    }
    System.out.printf("%-12s", "total");
    results
        .values()
        .forEach(l -> System.out.printf(" %18.1f", median(l.stream().mapToDouble(Result::total))));
    System.out.println();
    System.out.printf("%-12s", "drain, s");
    results
        .values()
        .forEach(
            l ->
                System.out.printf(" %18.0f", median(l.stream().mapToDouble(Result::drainSeconds))));
    System.out.println();
    List<Result> off = results.get(Mode.OFF);
    List<Result> approx = results.get(Mode.APPROX);
    List<Result> exact = results.get(Mode.EXACT);
    if (off == null || approx == null || exact == null) {
      return;
    }
    for (int r = 0; r < off.size(); r++) {
      double base = off.get(r).total();
      System.out.printf(
          "round %d: counters (journal and increments) %+.1f%% of ingest CPU, reconciliation %+.1f%%%n",
          r + 1,
          100 * (approx.get(r).total() - base) / base,
          100 * (exact.get(r).total() - approx.get(r).total()) / base);
    }
  }

  private static double median(java.util.stream.DoubleStream values) {
    double[] s = values.toArray();
    java.util.Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
