package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.Credential;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.Principal;
import io.ambergarden.auth.Scope;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.HdrHistogram.Recorder;

/**
 * The hidden cost of authentication: two instances of the service (each its own JVM, on the same
 * Cassandra and Kafka), one with auth.enabled=false and one with true, measured in alternating
 * short phases (off/on, then on/off, ...) so both see the same background load, which on a shared
 * 2-core machine swings more than the effect itself. Each pair of phases measures
 *
 * <ul>
 *   <li>ingest: events/s accepted (202) for batches of {@link #BATCH} events, {@link #CLIENTS}
 *       requests in flight;
 *   <li>the per-request cost: one-event posts/s, same concurrency;
 *   <li>reads: latency of GET /devices/{id}/latest at a fixed {@link #READ_RATE}/s;
 * </ul>
 *
 * and the service process's CPU time per request or event, which contention distorts far less than
 * throughput. With auth on every request carries an API key (rate limit out of the way), so it pays
 * for the key check, the cache and the rate limiter. Direct ingest mode: each phase's work is done
 * when its answers are (no consumer backlog running into the next phase). {@code mvn -Pbench
 * -Dbench.main=io.ambergarden.bench.AuthCostBench}. First, and alone with {@code
 * -Dexec.args=limiter} (no servers): the rate limiter against its synchronized predecessor ({@link
 * RateLimitCost}).
 */
public final class AuthCostBench {
  static final int BATCH = 100;
  static final int CLIENTS = 16;
  static final int READ_RATE = 100;
  static final int DEVICES = 500;
  static final int ROUNDS = Integer.getInteger("bench.auth.rounds", 6);
  static final Duration WARMUP = Duration.ofSeconds(Integer.getInteger("bench.auth.warmup", 15));
  static final Duration PHASE = Duration.ofSeconds(Integer.getInteger("bench.auth.phase", 8));
  static final String KEYSPACE = "amber_authbench";

  /** One phase on one instance: a rate, and the service CPU per unit of work in microseconds. */
  record Phase(double rate, double cpuMicrosPerUnit, double p50, double p99) {}

  private final LocalRuntime runtime;
  private final Vertx vertx =
      Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));

  private AuthCostBench(LocalRuntime runtime) {
    this.runtime = runtime;
  }

  /** One service instance and the client that drives it. */
  private record Instance(boolean auth, BenchService service, HttpClientAgent client, String key) {}

  public static void main(String[] args) throws Exception {
    RateLimitCost.run();
    if (args.length > 0 && args[0].equals("limiter")) {
      return;
    }
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      AuthCostBench bench = new AuthCostBench(runtime);
      Instance off = bench.start(false, options.baseDir());
      Instance on = bench.start(true, options.baseDir());
      bench.checkCost(on.key(), options.baseDir());
      try {
        bench.run(off, on);
      } finally {
        off.service().close();
        on.service().close();
        bench.vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
    System.exit(0);
  }

  private Instance start(boolean auth, Path base) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String topic = "authbench-" + (auth ? "on-" : "off-") + System.nanoTime();
    Map<String, String> cfg =
        BenchService.directModeConfig(
            runtime.cassandraContactPoint(), runtime.kafkaBootstrap(), KEYSPACE, topic, port);
    cfg.put("auth.enabled", Boolean.toString(auth));
    System.out.printf("starting the service with auth %s on %d%n", auth ? "ON" : "off", port);
    BenchService service =
        BenchService.start(
            cfg,
            port,
            List.of("-Xmx768m"),
            base.resolve("authbench-service-" + (auth ? "on" : "off") + ".log"));
    HttpClientAgent client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setDefaultHost("127.0.0.1")
                .setDefaultPort(port)
                .setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(CLIENTS * 2));
    return new Instance(auth, service, client, auth ? createKey() : null);
  }

  private void run(Instance off, Instance on) throws Exception {
    System.out.println("warming up both for " + WARMUP.toSeconds() + " s each");
    load(off, BATCH, WARMUP);
    load(on, BATCH, WARMUP);
    List<Phase[]> ingest = new ArrayList<>();
    List<Phase[]> single = new ArrayList<>();
    List<Phase[]> reads = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      // alternate which goes first, so neither always follows the other
      boolean offFirst = round % 2 == 0;
      Instance first = offFirst ? off : on;
      Instance second = offFirst ? on : off;
      Phase[] i = pair(offFirst, load(first, BATCH, PHASE), load(second, BATCH, PHASE));
      Phase[] o = pair(offFirst, load(first, 1, PHASE), load(second, 1, PHASE));
      Phase[] r = pair(offFirst, reads(first, PHASE), reads(second, PHASE));
      ingest.add(i);
      single.add(o);
      reads.add(r);
      System.out.printf(
          "round %d: ingest %,.0f / %,.0f events/s | one-event %,.0f / %,.0f req/s | read p99 %.1f /"
              + " %.1f ms   (off / on)%n",
          round + 1, i[0].rate(), i[1].rate(), o[0].rate(), o[1].rate(), r[0].p99(), r[1].p99());
    }
    report(ingest, single, reads);
  }

  /**
   * The credential check alone, in this process on one thread: CPU per request of {@link
   * Gatekeeper#authenticate} plus the rate limiter, for a cached API key and for an RS256 JWT
   * (verified every time). Thread CPU time, so other load on the machine does not count.
   */
  private void checkCost(String key, Path base) throws Exception {
    java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    java.security.KeyPair rsa = g.generateKeyPair();
    Path pem = java.nio.file.Files.createTempFile(base, "authbench-", ".pem");
    java.nio.file.Files.writeString(
        pem,
        "-----BEGIN PUBLIC KEY-----\n"
            + java.util.Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    io.ambergarden.config.AmberConfig config =
        io.ambergarden.config.ConfigLoader.load(
            Map.of(),
            new java.util.Properties(),
            Map.of(
                "cassandra.contact-points",
                runtime.cassandraContactPoint(),
                "cassandra.keyspace",
                KEYSPACE,
                "auth.jwt.public-key-file",
                pem.toString(),
                "auth.jwt.issuer",
                "https://id.bench",
                "auth.jwt.audience",
                "amber"));
    io.vertx.cassandra.CassandraClient cassandra =
        io.ambergarden.cassandra.CassandraClients.shared(vertx, config.cassandra());
    Gatekeeper gate = Gatekeeper.start(vertx, config, cassandra).await(30, TimeUnit.SECONDS);
    try {
      Credential apiKey = Credential.from("Bearer " + key, null, null).orElseThrow();
      long now = System.currentTimeMillis() / 1000;
      String claims =
          "{\"iss\":\"https://id.bench\",\"aud\":\"amber\",\"sub\":\"bench\",\"scope\":\"admin\","
              + "\"exp\":"
              + (now + 3600)
              + "}";
      java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
      String input =
          b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes())
              + "."
              + b64.encodeToString(claims.getBytes());
      java.security.Signature sig = java.security.Signature.getInstance("SHA256withRSA");
      sig.initSign(rsa.getPrivate());
      sig.update(input.getBytes());
      Credential jwt =
          Credential.from("Bearer " + input + "." + b64.encodeToString(sig.sign()), null, null)
              .orElseThrow();
      gate.authenticate(apiKey).await(30, TimeUnit.SECONDS); // loads the key once
      System.out.printf(
          "credential check CPU per request: API key (cached) %.2f us, RS256 JWT %.2f us%n",
          checkMicros(gate, apiKey, 200_000), checkMicros(gate, jwt, 5_000));
    } finally {
      gate.close();
      cassandra.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static double checkMicros(Gatekeeper gate, Credential c, int n) throws Exception {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    for (int i = 0; i < n / 10; i++) { // warm-up for the JIT
      gate.authenticate(c).await(10, TimeUnit.SECONDS);
    }
    long cpu0 = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      Principal p = gate.authenticate(c).await(10, TimeUnit.SECONDS);
      gate.rateWait(p);
    }
    return (threads.getCurrentThreadCpuTime() - cpu0) / 1000.0 / n;
  }

  /** {off, on} from phases measured in {@code offFirst} order. */
  private static Phase[] pair(boolean offFirst, Phase first, Phase second) {
    return offFirst ? new Phase[] {first, second} : new Phase[] {second, first};
  }

  /** An API key with every scope and no practical rate limit, in the bench keyspace. */
  private String createKey() {
    ApiKeys.Minted m = ApiKeys.mint();
    try (CqlSession cql = runtime.cassandra().openSession(Duration.ofSeconds(10))) {
      cql.execute(
          SimpleStatement.newInstance(
              "INSERT INTO "
                  + KEYSPACE
                  + ".api_keys (key_id, name, secret_hash, scopes, devices, rate_per_second,"
                  + " created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              m.id(),
              "auth-bench",
              ByteBuffer.wrap(m.hash()),
              Set.of(Scope.values()).stream().map(Scope::text).collect(Collectors.toSet()),
              List.of(),
              1_000_000,
              Instant.now(),
              "auth-bench"));
    }
    return m.text();
  }

  /** {@link #CLIENTS} loops posting {@code batch}-event bodies for {@code d}. */
  private Phase load(Instance target, int batch, Duration d) throws Exception {
    AtomicLong accepted = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long end = System.nanoTime() + d.toNanos();
    long[] sequence = {System.nanoTime()};
    List<Future<Void>> loops = new ArrayList<>();
    Duration cpu0 = cpu(target);
    long t0 = System.nanoTime();
    for (int i = 0; i < CLIENTS; i++) {
      io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
      loops.add(done.future());
      vertx.runOnContext(
          v ->
              postLoop(
                  target, batch, end, accepted, failed, sequence, new SplittableRandom(), done));
    }
    Future.all(loops).await(d.toSeconds() + 60, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuMicros = cpu(target).minus(cpu0).toNanos() / 1000.0;
    if (failed.get() > 0) {
      System.out.printf("   (%d posts were not accepted)%n", failed.get());
    }
    return new Phase(
        accepted.get() / seconds, cpuMicros / Math.max(1, accepted.get()), Double.NaN, Double.NaN);
  }

  private static Duration cpu(Instance target) {
    return target.service().handle().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Posts one body, then the next from its answer's callback, until {@code end}. */
  private void postLoop(
      Instance target,
      int batch,
      long end,
      AtomicLong accepted,
      AtomicLong failed,
      long[] sequence,
      SplittableRandom random,
      io.vertx.core.Promise<Void> done) {
    if (System.nanoTime() >= end) {
      done.complete();
      return;
    }
    long now = System.currentTimeMillis();
    StringBuilder body = new StringBuilder(batch * 120).append('[');
    for (int k = 0; k < batch; k++) {
      body.append(k == 0 ? "" : ",")
          .append("{\"deviceId\":\"ab-")
          .append(random.nextInt(DEVICES))
          .append("\",\"ts\":")
          .append(now)
          .append(",\"eventId\":\"")
          .append(sequence[0]++)
          .append("\",\"code\":200,\"metrics\":{\"temperature\":21.5}}");
    }
    RequestOptions r =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setURI("/api/v1/events")
            .putHeader("Content-Type", "application/json");
    if (target.key() != null) {
      r.putHeader("Authorization", "Bearer " + target.key());
    }
    target
        .client()
        .request(r)
        .compose(req -> req.send(Buffer.buffer(body.append(']').toString())))
        .compose(resp -> resp.body().map(b -> resp.statusCode()))
        .onComplete(
            ar -> {
              if (ar.succeeded() && ar.result() == 202) {
                accepted.addAndGet(batch);
              } else {
                failed.incrementAndGet();
              }
              postLoop(target, batch, end, accepted, failed, sequence, random, done);
            });
  }

  /** GET latest at a fixed rate for {@code d}: rate answered, CPU per read, p50 and p99 ms. */
  private Phase reads(Instance target, Duration d) throws Exception {
    Recorder recorder = new Recorder(3);
    AtomicLong errors = new AtomicLong();
    AtomicLong answered = new AtomicLong();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    SplittableRandom random = new SplittableRandom(7);
    Duration cpu0 = cpu(target);
    timer.scheduleAtFixedRate(
        () -> {
          RequestOptions r =
              new RequestOptions()
                  .setMethod(HttpMethod.GET)
                  .setURI("/api/v1/devices/ab-" + random.nextInt(DEVICES) + "/latest");
          if (target.key() != null) {
            r.putHeader("Authorization", "Bearer " + target.key());
          }
          long t0 = System.nanoTime();
          target
              .client()
              .request(r)
              .compose(req -> req.send().compose(resp -> resp.body().map(b -> resp.statusCode())))
              .onComplete(
                  ar -> {
                    if (ar.succeeded() && (ar.result() == 200 || ar.result() == 404)) {
                      recorder.recordValue((System.nanoTime() - t0) / 1000);
                      answered.incrementAndGet();
                    } else {
                      errors.incrementAndGet();
                    }
                  });
        },
        0,
        1_000_000 / READ_RATE,
        TimeUnit.MICROSECONDS);
    // the phase is its duration: the schedule above runs meanwhile
    timer.awaitTermination(d.toMillis(), TimeUnit.MILLISECONDS);
    timer.shutdownNow();
    double cpuMicros = cpu(target).minus(cpu0).toNanos() / 1000.0;
    var h = recorder.getIntervalHistogram();
    if (errors.get() > 0) {
      System.out.printf("   (%d reads failed)%n", errors.get());
    }
    return new Phase(
        answered.get() / (double) d.toSeconds(),
        cpuMicros / Math.max(1, answered.get()),
        h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0);
  }

  private static void report(List<Phase[]> ingest, List<Phase[]> single, List<Phase[]> reads) {
    System.out.println();
    System.out.println(
        "| round | ingest events/s off | on | one-event req/s off | on | read p99 ms off | on |"
            + " read p50 ms off | on |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (int i = 0; i < ingest.size(); i++) {
      System.out.printf(
          "| %d | %,.0f | %,.0f | %,.0f | %,.0f | %.1f | %.1f | %.2f | %.2f |%n",
          i + 1,
          ingest.get(i)[0].rate(),
          ingest.get(i)[1].rate(),
          single.get(i)[0].rate(),
          single.get(i)[1].rate(),
          reads.get(i)[0].p99(),
          reads.get(i)[1].p99(),
          reads.get(i)[0].p50(),
          reads.get(i)[1].p50());
    }
    System.out.println();
    System.out.println("| measure | off | on | on / off (median of the rounds' ratios) |");
    System.out.println("|---|---|---|---|");
    line("ingest events/s (batches of " + BATCH + ")", ingest, Phase::rate);
    line("one-event posts/s", single, Phase::rate);
    line("read p50 ms", reads, Phase::p50);
    line("read p99 ms", reads, Phase::p99);
    line("service CPU us per ingested event", ingest, Phase::cpuMicrosPerUnit);
    line("service CPU us per one-event post", single, Phase::cpuMicrosPerUnit);
    line("service CPU us per read", reads, Phase::cpuMicrosPerUnit);
  }

  private static void line(
      String what, List<Phase[]> pairs, java.util.function.ToDoubleFunction<Phase> f) {
    double[] off = pairs.stream().mapToDouble(p -> f.applyAsDouble(p[0])).sorted().toArray();
    double[] on = pairs.stream().mapToDouble(p -> f.applyAsDouble(p[1])).sorted().toArray();
    double[] ratios =
        pairs.stream()
            .mapToDouble(p -> f.applyAsDouble(p[1]) / f.applyAsDouble(p[0]))
            .sorted()
            .toArray();
    System.out.printf(
        "| %s | %,.2f | %,.2f | %.3f |%n", what, median(off), median(on), median(ratios));
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n == 0
        ? Double.NaN
        : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
