package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.ambergarden.localrt.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The device-image benchmark ({@code mvn -Pbench -Dbench.main=io.ambergarden.bench.ImageBench}): on
 * the local Cassandra and S3Proxy, in one run,
 *
 * <ol>
 *   <li>(raw) the store's own PUT rate: the same bodies PUT straight to S3Proxy through signed URLs
 *       by the same HTTP client at the same concurrency, the ceiling of what the service can
 *       upload;
 *   <li>(upload) the service, in its own JVM: POST /api/v1/devices/{id}/images (stream to the
 *       store, SHA-256, magic bytes, then the metadata batch), MB/s and latency;
 *   <li>(list) GET of device and tag lists (first pages and next pages, over three months), p50 /
 *       p99 / max at a fixed concurrency.
 * </ol>
 *
 * Settings: -Damber.bench.images.NAME (uploads, bytes, concurrency, lists, list-concurrency,
 * warmup, devices). Results in .bench-results/&lt;UTC&gt;-images/results.md.
 */
public final class ImageBench {
  private static final String KEYSPACE = "amber_bench_images";
  private static final String BUCKET = "bench-images";

  private final int uploads = setting("uploads", 600);
  private final int bytes = setting("bytes", 1 << 20);
  private final int concurrency = setting("concurrency", 16);
  private final int lists = setting("lists", 3000);
  private final int listConcurrency = setting("list-concurrency", 8);
  private final int warmup = setting("warmup", 200);
  private final int devices = setting("devices", 20);
  private final int port = setting("http-port", 18_081);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<String> report = new ArrayList<>();
  private final byte[] body;

  private ImageBench() {
    body = new byte[bytes];
    new Random(42).nextBytes(body);
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    System.arraycopy(png, 0, body, 0, png.length);
  }

  private static int setting(String name, int def) {
    return BenchSettings.setting("images." + name, def);
  }

  public static void main(String[] args) throws Exception {
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      new ImageBench().run(runtime);
    }
    System.exit(0);
  }

  private void run(LocalRuntime runtime) throws Exception {
    S3ProxyServer store = runtime.objectStore();
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      System.out.println("Dropping keyspace " + KEYSPACE + " (the service recreates it)");
      session.execute(
          SimpleStatement.newInstance("DROP KEYSPACE IF EXISTS " + KEYSPACE)
              .setTimeout(Duration.ofSeconds(60)));
    }
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", runtime.cassandraContactPoint());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    cfg.put("ingest.mode", "direct");
    cfg.put("kafka.consumer.enabled", "false");
    cfg.put("kafka.create-topics", "false");
    cfg.put("live.enabled", "false");
    // this bench measures images; the cost of credentials is measured apart, by AuthCostBench
    cfg.put("auth.enabled", "false");
    cfg.put("http.port", Integer.toString(port));
    cfg.put("media.s3.endpoint", store.endpoint());
    cfg.put("media.s3.access-key", store.accessKey());
    cfg.put("media.s3.secret-key", store.secretKey());
    cfg.put("media.s3.bucket", BUCKET);
    cfg.put("media.sweep.enabled", "false");
    cfg.put("media.max-in-flight-uploads", Integer.toString(Math.max(64, concurrency * 2)));
    Path dir =
        Path.of(".bench-results")
            .resolve(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'")
                        .format(Instant.now().atOffset(ZoneOffset.UTC))
                    + "-images");
    Files.createDirectories(dir);
    BenchService[] service = new BenchService[1];
    CpuLedger ledger =
        new CpuLedger()
            .process("Cassandra", () -> runtime.cassandra().pid().flatMap(ProcessHandle::of))
            .process("S3Proxy", () -> store.pid().flatMap(ProcessHandle::of))
            .process("service", () -> Optional.ofNullable(service[0]).map(BenchService::handle))
            .process("harness", () -> Optional.of(ProcessHandle.current()));
    System.out.println("Starting the service (its own JVM, -Xmx1g)");
    service[0] =
        BenchService.start(cfg, port, List.of("-Xms1g", "-Xmx1g"), dir.resolve("service.log"));
    try (S3Presigner presigner = presigner(store);
        S3Client s3 = control(store)) {
      s3.headBucket(b -> b.bucket(BUCKET));
      report.add("# Device images benchmark, " + Instant.now());
      report.add("");
      report.add(
          String.format(
              "%d cores, Java %s; %d uploads of %d bytes at concurrency %d (after %d warm-up);"
                  + " %d list requests at concurrency %d over %d devices and 3 months.",
              Runtime.getRuntime().availableProcessors(),
              System.getProperty("java.version"),
              uploads,
              bytes,
              concurrency,
              warmup,
              lists,
              listConcurrency,
              devices));
      report.add("");
      report.add(
          "| phase | requests | MB/s | req/s | p50 ms | p99 ms | max ms | CPU cores (Cassandra / S3Proxy / service / harness) |");
      report.add("|---|---:|---:|---:|---:|---:|---:|---|");
      IntFunction<HttpRequest> raw =
          i ->
              HttpRequest.newBuilder(rawUrl(presigner, "raw/" + i))
                  .header("Content-Type", "image/png")
                  .PUT(HttpRequest.BodyPublishers.ofByteArray(body))
                  .build();
      phase("warm-up: raw PUT", warmup, concurrency, raw, 200, null);
      phase("(raw) store PUT, the ceiling", uploads, concurrency, raw, 200, ledger);
      IntFunction<HttpRequest> upload = i -> uploadRequest(i);
      phase("warm-up: service upload", warmup, concurrency, upload, 201, null);
      Phase up = phase("(upload) service POST image", uploads, concurrency, upload, 201, ledger);
      ledger.awaitQuiet("Cassandra", 0.3, Duration.ofSeconds(2), Duration.ofSeconds(60));
      List<String> pages = nextPages();
      IntFunction<HttpRequest> list =
          i -> {
            String path =
                switch (i % 3) {
                  case 0 -> "/api/v1/devices/bench-" + (i % devices) + "/images?limit=20";
                  case 1 -> "/api/v1/tags/tag-" + (i % 5) + "/images?limit=20";
                  default -> pages.get(i % pages.size());
                };
            return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .GET()
                .build();
          };
      phase("warm-up: list", Math.min(lists, 500), listConcurrency, list, 200, null);
      Phase listed =
          phase("(list) device and tag pages", lists, listConcurrency, list, 200, ledger);
      report.add("");
      report.add(
          String.format(
              "Service upload / raw store PUT: %.0f %% of the store's MB/s at the same concurrency.",
              100 * up.mbPerSecond / rawCeiling));
      report.add(String.format("List p99: %.1f ms.", listed.p99));
    } finally {
      service[0].close();
    }
    Files.writeString(
        dir.resolve("results.md"), String.join("\n", report) + "\n", StandardCharsets.UTF_8);
    System.out.println(String.join("\n", report));
    System.out.println("\nWritten to " + dir.resolve("results.md"));
  }

  private double rawCeiling = Double.NaN;

  private record Phase(double mbPerSecond, double p99) {}

  /**
   * Sends {@code n} requests at {@code parallel} in flight; every answer must be {@code status}.
   */
  private Phase phase(
      String name,
      int n,
      int parallel,
      IntFunction<HttpRequest> request,
      int status,
      CpuLedger ledger)
      throws Exception {
    System.out.println("Phase " + name + ": " + n + " requests, " + parallel + " in flight");
    Histogram latency = new Histogram(60_000_000L, 3);
    Semaphore slots = new Semaphore(parallel);
    AtomicInteger failures = new AtomicInteger();
    List<CompletableFuture<?>> all = new ArrayList<>();
    long[] sent = {0};
    CpuLedger.Span span = ledger == null ? null : ledger.start(name);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      slots.acquire();
      HttpRequest r = request.apply(i);
      long start = System.nanoTime();
      all.add(
          http.sendAsync(r, HttpResponse.BodyHandlers.ofByteArray())
              .whenComplete(
                  (resp, err) -> {
                    slots.release();
                    synchronized (latency) {
                      latency.recordValue((System.nanoTime() - start) / 1000);
                      if (err == null && resp.statusCode() == status) {
                        sent[0] +=
                            r.bodyPublisher().map(p -> p.contentLength()).orElse(0L)
                                + resp.body().length;
                      } else if (failures.incrementAndGet() <= 3) {
                        System.out.println(
                            "  failed: "
                                + (err != null
                                    ? err
                                    : resp.statusCode()
                                        + " "
                                        + new String(resp.body(), StandardCharsets.UTF_8)));
                      }
                    }
                  }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
    double seconds = (System.nanoTime() - t0) / 1e9;
    CpuLedger.Phase cpu = span == null ? null : span.end(n);
    double mbps = sent[0] / 1e6 / seconds;
    double p99 = latency.getValueAtPercentile(99) / 1000.0;
    if (name.startsWith("(raw)")) {
      rawCeiling = mbps;
    }
    if (failures.get() > 0) {
      throw new IllegalStateException(
          name + ": " + failures.get() + " of " + n + " requests failed");
    }
    if (cpu != null) {
      report.add(
          String.format(
              "| %s | %d | %.1f | %.0f | %.1f | %.1f | %.1f | %.2f / %.2f / %.2f / %.2f |",
              name,
              n,
              mbps,
              n / seconds,
              latency.getValueAtPercentile(50) / 1000.0,
              p99,
              latency.getMaxValue() / 1000.0,
              cpu.cores("Cassandra"),
              cpu.cores("S3Proxy"),
              cpu.cores("service"),
              cpu.cores("harness")));
    }
    System.out.printf(
        "  %.1f s, %.1f MB/s, %.0f req/s, p99 %.1f ms%n", seconds, mbps, n / seconds, p99);
    return new Phase(mbps, p99);
  }

  /** Devices bench-0.., two tags each of tag-0..4, createdAt over this month and two before. */
  private HttpRequest uploadRequest(int i) {
    YearMonth month = YearMonth.now(ZoneOffset.UTC).minusMonths(i % 3);
    long createdAt =
        Math.min(
            System.currentTimeMillis(),
            month.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli() + 60_000L * i);
    String q = "?tags=tag-" + (i % 5) + ",tag-" + ((i + 1) % 5) + "&createdAt=" + createdAt;
    return HttpRequest.newBuilder(
            URI.create(
                "http://127.0.0.1:"
                    + port
                    + "/api/v1/devices/bench-"
                    + (i % devices)
                    + "/images"
                    + q))
        .header("Content-Type", "image/png")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  /** Second pages (with the cursor of a first page), the keyset continuation. */
  private List<String> nextPages() throws Exception {
    List<String> out = new ArrayList<>();
    for (int d = 0; d < devices; d++) {
      String path = "/api/v1/devices/bench-" + d + "/images?limit=20";
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      String next = new io.vertx.core.json.JsonObject(r.body()).getString("next");
      if (next != null) {
        out.add(path + "&cursor=" + next);
      }
    }
    if (out.isEmpty()) {
      // a small run: every device fits on one page, so the "next page" requests read first pages
      out.add("/api/v1/devices/bench-0/images?limit=20");
    }
    return out;
  }

  private URI rawUrl(S3Presigner presigner, String key) {
    try {
      return presigner
          .presignPutObject(
              p ->
                  p.signatureDuration(Duration.ofMinutes(10))
                      .putObjectRequest(r -> r.bucket(BUCKET).key(key).contentType("image/png")))
          .url()
          .toURI();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static StaticCredentialsProvider credentials(S3ProxyServer store) {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(store.accessKey(), store.secretKey()));
  }

  private static S3Presigner presigner(S3ProxyServer store) {
    return S3Presigner.builder()
        .endpointOverride(URI.create(store.endpoint()))
        .region(Region.US_EAST_1)
        .credentialsProvider(credentials(store))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .build();
  }

  private static S3Client control(S3ProxyServer store) {
    return S3Client.builder()
        .endpointOverride(URI.create(store.endpoint()))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(credentials(store))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }
}
