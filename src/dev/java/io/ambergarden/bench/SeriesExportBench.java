package io.ambergarden.bench;

import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Issue 30's figures for one device's day: {@code series} at 1m over 24 h (1,440 points from one
 * event every 10 s), at 1h over 24 h before and after the hours are rolled up, and the same range
 * exported (NDJSON, CSV) against a walk of it with the page API (1,000 a page), in alternating
 * rounds so both see the same background load. Direct ingest mode, one service JVM. {@code mvn
 * -Pbench -Dbench.main=io.ambergarden.bench.SeriesExportBench}; results in
 * .bench-results/&lt;UTC&gt;-series-export/results.md.
 */
public final class SeriesExportBench {
  static final String KEYSPACE = "amber_seriesbench";
  static final String DEVICE = "series-bench-1";
  static final long DAY = 86_400_000L;

  private final int events = BenchSettings.setting("series-events", 8_640);
  private final int rounds = BenchSettings.setting("series-rounds", 5);
  private final int seriesRequests = BenchSettings.setting("series-requests", 20);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final StringBuilder md = new StringBuilder();
  private int port;
  private BenchService service;
  private long from;
  private long to;

  public static void main(String[] args) throws Exception {
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      new SeriesExportBench().run(runtime, options);
    }
    System.exit(0);
  }

  private void run(LocalRuntime runtime, LocalRuntimeOptions options) throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String topic = "seriesbench-" + System.nanoTime();
    Map<String, String> cfg =
        BenchService.directModeConfig(
            runtime.cassandraContactPoint(), runtime.kafkaBootstrap(), KEYSPACE, topic, port);
    // reads at full speed: an export's rate tokens are the key's, and this measures the reads
    cfg.put("auth.enabled", "false");
    // the backfilled day's hours are rolled up within a minute, not after the default 2 minutes
    cfg.put("rollup.grace", "20s");
    cfg.put("query.series-max-scanned", Integer.toString(Math.max(10_000, events + 1_000)));
    Path base = options.baseDir();
    service = BenchService.start(cfg, port, List.of("-Xmx768m"), base.resolve("seriesbench.log"));
    try {
      load();
      measure();
    } finally {
      service.close();
    }
    Path dir =
        options
            .projectDir()
            .resolve(".bench-results")
            .resolve(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'")
                        .format(Instant.now().atOffset(ZoneOffset.UTC))
                    + "-series-export");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), md.toString());
    System.out.println(md);
    System.out.println("Results: " + dir);
  }

  /** One event every 86,400,000 / events ms over the last day, in batches of 500. */
  private void load() throws Exception {
    long now = System.currentTimeMillis();
    to = now;
    from = now - DAY;
    long spacing = DAY / events;
    JsonArray batch = new JsonArray();
    for (int i = 0; i < events; i++) {
      long ts = from + i * spacing;
      batch.add(
          new JsonObject()
              .put("deviceId", DEVICE)
              .put("ts", ts)
              .put("deviceType", "meter")
              .put("status", i % 50 == 0 ? "fault" : "normal")
              .put("code", i % 50 == 0 ? 500 : 200)
              .put(
                  "metrics",
                  new JsonObject()
                      .put("temperature", 20 + 5 * Math.sin(i / 100.0))
                      .put("current", 4 + (i % 7) / 10.0)));
      if (batch.size() == 500 || i == events - 1) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(uri("/api/v1/events"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(batch.encode()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
          throw new IllegalStateException("post: " + r.statusCode() + " " + r.body());
        }
        batch = new JsonArray();
      }
    }
    System.out.printf("loaded %,d events of %s over 24 h%n", events, DEVICE);
  }

  private void measure() throws Exception {
    md.append("# series and export, one device's day\n\n")
        .append(
            String.format(
                "%,d events of one device over 24 h (one every %d ms).%n%n", events, DAY / events));
    double[] cold = seriesLatencies("1h", seriesRequests);
    md.append(row("series 1h over 24 h, hours not yet rolled up (detail rows)", cold));
    awaitRolledUp();
    List<double[]> fine = new ArrayList<>();
    List<double[]> hourly = new ArrayList<>();
    List<Double> ndjson = new ArrayList<>();
    List<Double> csv = new ArrayList<>();
    List<Double> pages = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      boolean exportFirst = round % 2 == 0;
      if (exportFirst) {
        ndjson.add(export("ndjson"));
        pages.add(pageWalk());
      } else {
        pages.add(pageWalk());
        ndjson.add(export("ndjson"));
      }
      csv.add(export("csv"));
      fine.add(seriesLatencies("1m", seriesRequests));
      hourly.add(seriesLatencies("1h", seriesRequests));
      System.out.printf(
          "round %d: export %,.0f ev/s (csv %,.0f), page walk %,.0f ev/s; series 1m p50 %.1f ms,"
              + " 1h p50 %.1f ms%n",
          round + 1,
          ndjson.get(round),
          csv.get(round),
          pages.get(round),
          fine.get(round)[0],
          hourly.get(round)[0]);
    }
    md.append(row("series 1m over 24 h (1,440 points, detail rows)", merge(fine)))
        .append(row("series 1h over 24 h (rolled-up hours)", merge(hourly)))
        .append(
            "\n| read of the day | events/s, median of "
                + rounds
                + " | per round |\n|---|---|---|\n")
        .append(rate("export, NDJSON", ndjson))
        .append(rate("export, CSV (two metrics)", csv))
        .append(rate("page walk, 1,000 a page", pages))
        .append(
            String.format(
                "%nExport against the page walk, median of the per-round ratios: %.2f%n",
                medianRatio(ndjson, pages)));
  }

  /** Latencies of {@code n} sequential series requests over the day, in ms: p50, p99, max. */
  private double[] seriesLatencies(String step, int n) throws Exception {
    double[] ms = new double[n];
    int points = -1;
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      HttpResponse<String> r =
          get(
              "/api/v1/devices/"
                  + DEVICE
                  + "/series?metric=temperature&step="
                  + step
                  + "&from="
                  + from
                  + "&to="
                  + (to + 1));
      ms[i] = (System.nanoTime() - t0) / 1e6;
      if (r.statusCode() != 200) {
        throw new IllegalStateException("series " + step + ": " + r.statusCode() + " " + r.body());
      }
      int p = new JsonObject(r.body()).getJsonArray("points").size();
      if (points >= 0 && p != points) {
        throw new IllegalStateException("series " + step + " changed from " + points + " to " + p);
      }
      points = p;
    }
    Arrays.sort(ms);
    return new double[] {
      ms[n / 2], ms[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)], ms[n - 1], points
    };
  }

  /** Waits until every whole hour of the day is rolled up (the rollups API lists it). */
  private void awaitRolledUp() throws Exception {
    long firstWhole = (from / 3_600_000L + 1) * 3_600_000L;
    long lastClosed = (to / 3_600_000L) * 3_600_000L;
    int wanted = (int) ((lastClosed - firstWhole) / 3_600_000L);
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    int seen = 0;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r =
          get("/api/v1/devices/" + DEVICE + "/rollups?from=" + firstWhole + "&to=" + lastClosed);
      seen = r.statusCode() == 200 ? new JsonObject(r.body()).getJsonArray("items").size() : 0;
      if (seen >= wanted) {
        System.out.printf("%d hours rolled up%n", seen);
        return;
      }
      Thread.sleep(2_000); // polling a background job's progress, not timing anything
    }
    throw new IllegalStateException("only " + seen + " of " + wanted + " hours rolled up");
  }

  /** Events/s of one export of the day, read as fast as this client can. */
  private double export(String format) throws Exception {
    String path =
        "/api/v1/devices/"
            + DEVICE
            + "/events/export?format="
            + format
            + "&from="
            + from
            + "&to="
            + (to + 1)
            + (format.equals("csv")
                ? "&metrics=" + URLEncoder.encode("temperature,current", StandardCharsets.UTF_8)
                : "");
    long t0 = System.nanoTime();
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(uri(path)).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
    long lines = 0;
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      while (in.readLine() != null) {
        lines++;
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    long got = format.equals("csv") ? lines - 1 : lines;
    if (r.statusCode() != 200 || got != events) {
      throw new IllegalStateException(
          "export " + format + ": " + r.statusCode() + ", " + got + " events");
    }
    return got / seconds;
  }

  /** Events/s of walking the day through the page API, 1,000 events a page. */
  private double pageWalk() throws Exception {
    long t0 = System.nanoTime();
    long got = 0;
    String cursor = null;
    do {
      HttpResponse<String> r =
          get(
              "/api/v1/devices/"
                  + DEVICE
                  + "/events?limit=1000&from="
                  + from
                  + "&to="
                  + (to + 1)
                  + (cursor == null
                      ? ""
                      : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
      if (r.statusCode() != 200) {
        throw new IllegalStateException("page: " + r.statusCode() + " " + r.body());
      }
      JsonObject page = new JsonObject(r.body());
      got += page.getJsonArray("items").size();
      cursor = page.getString("next");
    } while (cursor != null);
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (got != events) {
      throw new IllegalStateException("page walk: " + got + " events");
    }
    return got / seconds;
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static double[] merge(List<double[]> perRound) {
    double[] p50 = perRound.stream().mapToDouble(r -> r[0]).sorted().toArray();
    double[] p99 = perRound.stream().mapToDouble(r -> r[1]).sorted().toArray();
    double max = perRound.stream().mapToDouble(r -> r[2]).max().orElse(Double.NaN);
    return new double[] {p50[p50.length / 2], p99[p99.length / 2], max, perRound.get(0)[3]};
  }

  private String row(String what, double[] r) {
    if (!md.toString().contains("| series |")) {
      md.append("| series | points | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n");
    }
    return String.format("| %s | %.0f | %.1f | %.1f | %.1f |%n", what, r[3], r[0], r[1], r[2]);
  }

  private static String rate(String what, List<Double> perRound) {
    double[] sorted = perRound.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    StringBuilder each = new StringBuilder();
    perRound.forEach(v -> each.append(String.format("%,.0f ", v)));
    return String.format("| %s | %,.0f | %s|%n", what, sorted[sorted.length / 2], each);
  }

  private static double medianRatio(List<Double> a, List<Double> b) {
    double[] r = new double[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = a.get(i) / b.get(i);
    }
    Arrays.sort(r);
    return r[r.length / 2];
  }
}
