package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.auth.Scope;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET /api/v1/devices/{id}/events/export against the real servers: 50,000 events of one device
 * (over three hourly buckets, hot enough to be split into salted slices, with events sharing a
 * millisecond) exported as NDJSON and as CSV, each event once and oldest first; a slow reader keeps
 * the buffered bytes bounded; a client that leaves stops the reads; a client that stops reading is
 * dropped; the cap and the rate; CSV quoting and the formula guard; the 400s.
 */
@ExtendWith(RealServers.class)
@Timeout(600)
class ExportIT {
  private static final Logger LOG = LoggerFactory.getLogger(ExportIT.class);
  static final int EVENTS = 50_000;
  static final long MIB = 1024 * 1024;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static TestService s;
  static String device;
  static List<Ev> expected;

  record Ev(long ts, String id) {}

  /** An export's order: ts ascending, then event id descending (the table's order reversed). */
  static final Comparator<Ev> OLDEST_FIRST =
      Comparator.comparingLong(Ev::ts).thenComparing(Ev::id, Comparator.reverseOrder());

  @BeforeAll
  static void start() throws Exception {
    s =
        TestService.start(
            Map.of(
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                "hot.partition-rows", "4000",
                "hot.max-salts", "8",
                "export.stall-timeout", "5s",
                "export.max-concurrent", "2"));
    device = "exp-" + UUID.randomUUID().toString().substring(0, 8);
    // 2.8 hours before now, 200 ms apart; every tenth event shares the ms of the one before
    long base = System.currentTimeMillis() - 3 * 3_600_000L;
    List<Ev> all = new ArrayList<>(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      long ts = i % 10 == 1 ? all.get(i - 1).ts() : base + i * 200L;
      all.add(new Ev(ts, String.format("e%05d", i)));
    }
    long t0 = System.nanoTime();
    load(device, all);
    LOG.info("loaded {} events in {} ms", EVENTS, (System.nanoTime() - t0) / 1_000_000);
    expected = new ArrayList<>(all);
    expected.sort(OLDEST_FIRST);
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  /** Batches of 1,000 (ingest.max-batch), four in flight. */
  static void load(String dev, List<Ev> events) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = 0; i < events.size(); i += 1000) {
        List<Ev> batch = events.subList(i, Math.min(events.size(), i + 1000));
        int first = i;
        sent.add(pool.submit(() -> s.postEvents(batchJson(dev, batch, first))));
      }
      for (Future<HttpResponse<String>> f : sent) {
        HttpResponse<String> r = f.get();
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
      }
    } finally {
      pool.shutdown();
    }
  }

  static String batchJson(String dev, List<Ev> batch, int first) {
    StringBuilder b = new StringBuilder(batch.size() * 160).append('[');
    for (int j = 0; j < batch.size(); j++) {
      Ev e = batch.get(j);
      int n = first + j;
      b.append(j > 0 ? "," : "")
          .append("{\"deviceId\":\"")
          .append(dev)
          .append("\",\"ts\":")
          .append(e.ts())
          .append(",\"eventId\":\"")
          .append(e.id())
          .append("\",\"deviceType\":\"meter\",\"status\":\"")
          .append(n % 7 == 0 ? "warn" : "normal")
          .append("\",\"code\":200,\"metrics\":{\"temperature\":")
          .append(n % 100)
          .append(".5")
          .append(n % 2 == 1 ? ",\"voltage\":230" : "")
          .append("}}");
    }
    return b.append(']').toString();
  }

  static String path(String dev, String query) {
    return "/api/v1/devices/" + dev + "/events/export" + (query.isEmpty() ? "" : "?" + query);
  }

  static HttpResponse<Stream<String>> stream(String pathAndQuery, String key) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(s.uri(pathAndQuery))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofLines());
  }

  double meter(String name) {
    var g = s.app().registry().find(name).gauge();
    return g != null ? g.value() : s.counter(name);
  }

  @Test
  void ndjsonHasEveryEventOnceOldestFirstInThePageItemsShape() throws Exception {
    double eventsBefore = s.counter("amber.export.events");
    long t0 = System.nanoTime();
    HttpResponse<Stream<String>> r = stream(path(device, "format=ndjson"), TestKeys.admin());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
    assertThat(r.headers().firstValue("Content-Disposition"))
        .hasValue("attachment; filename=\"" + device + "-events.ndjson\"");
    List<Ev> seen = new ArrayList<>(EVENTS);
    int[] n = {0};
    try (Stream<String> lines = r.body()) {
      lines.forEach(
          line -> {
            JsonObject o = new JsonObject(line);
            if (n[0]++ % 997 == 0) {
              ApiSchemas.assertMatches("Event", o, "NDJSON line " + n[0]);
              assertThat(o.getString("deviceId")).isEqualTo(device);
              assertThat(o.getString("deviceType")).isEqualTo("meter");
              assertThat(o.getJsonObject("metrics").containsKey("temperature")).isTrue();
            }
            seen.add(new Ev(o.getLong("ts"), o.getString("eventId")));
          });
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertThat(seen).hasSize(EVENTS);
    assertThat(seen).isEqualTo(expected);
    assertThat(s.counter("amber.export.events") - eventsBefore).isEqualTo(EVENTS);

    // the figure: the export against a walk of the same range through the pages (1,000 a page)
    long w0 = System.nanoTime();
    int walked = walkPages(device);
    double walkSeconds = (System.nanoTime() - w0) / 1e9;
    assertThat(walked).isEqualTo(EVENTS);
    LOG.info(
        "FIGURE export NDJSON: {} events in {} s = {} events/s; page walk (limit=1000): {} s = {}"
            + " events/s",
        EVENTS,
        String.format("%.2f", seconds),
        Math.round(EVENTS / seconds),
        String.format("%.2f", walkSeconds),
        Math.round(EVENTS / walkSeconds));
  }

  static int walkPages(String dev) {
    String cursor = null;
    int count = 0;
    do {
      HttpResponse<String> r =
          s.get(
              "/api/v1/devices/"
                  + dev
                  + "/events?limit=1000"
                  + (cursor == null
                      ? ""
                      : "&cursor=" + java.net.URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonObject page = new JsonObject(r.body());
      count += page.getJsonArray("items").size();
      cursor = page.getString("next");
    } while (cursor != null);
    return count;
  }

  @Test
  void csvHasTheHeaderThenEveryEventOnceOldestFirst() throws Exception {
    HttpResponse<Stream<String>> r =
        stream(path(device, "format=csv&metrics=voltage,temperature"), TestKeys.admin());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/csv; charset=utf-8");
    assertThat(r.headers().firstValue("Content-Disposition"))
        .hasValue("attachment; filename=\"" + device + "-events.csv\"");
    List<String> lines;
    try (Stream<String> body = r.body()) {
      lines = body.toList();
    }
    assertThat(lines.get(0)).isEqualTo("ts,eventId,deviceType,status,code,voltage,temperature");
    List<Ev> seen = new ArrayList<>(EVENTS);
    for (String line : lines.subList(1, lines.size())) {
      String[] c = line.split(",", -1);
      assertThat(c).hasSize(7);
      long ts = Instant.parse(c[0]).toEpochMilli();
      assertThat(c[0]).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
      seen.add(new Ev(ts, c[1]));
      int n = Integer.parseInt(c[1].substring(1));
      assertThat(c[2]).isEqualTo("meter");
      assertThat(c[3]).isEqualTo(n % 7 == 0 ? "warn" : "normal");
      assertThat(c[4]).isEqualTo("200");
      assertThat(c[5])
          .as("voltage of %s (missing: empty)", c[1])
          .isEqualTo(n % 2 == 1 ? "230" : "");
      assertThat(c[6]).isEqualTo((n % 100) + ".5");
    }
    assertThat(seen).hasSize(EVENTS);
    assertThat(seen).isEqualTo(expected);
  }

  @Test
  void csvQuotesCellsAsRfc4180SaysAndGuardsFormulas() throws Exception {
    String dev = "csv-" + UUID.randomUUID().toString().substring(0, 8);
    long ts = System.currentTimeMillis() - 60_000;
    String body =
        "[{\"deviceId\":\"%s\",\"ts\":%d,\"eventId\":\"-e1\",\"status\":\"=cmd|' /C calc'!A0\",\"metrics\":{\"t\":-3.5}},"
                .formatted(dev, ts)
            + "{\"deviceId\":\"%s\",\"ts\":%d,\"eventId\":\"e2\",\"deviceType\":\"-x\",\"status\":\"a,\\\"b\\\"\",\"code\":7}]"
                .formatted(dev, ts + 1);
    HttpResponse<String> posted = s.postEvents(body);
    assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
    HttpResponse<String> r = s.get(path(dev, "format=csv&metrics=t,-m"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.body())
        .isEqualTo(
            "ts,eventId,deviceType,status,code,t,'-m\r\n"
                + millis(ts)
                + ",'-e1,,'=cmd|' /C calc'!A0,,-3.5,\r\n"
                + millis(ts + 1)
                + ",e2,'-x,\"a,\"\"b\"\"\",7,,\r\n");
  }

  static String millis(long ts) {
    return java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
        .withZone(java.time.ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(ts));
  }

  @Test
  void aBadFormatRangeOrMissingMetricsIsA400NamingTheParameter() {
    assertBadRequest(path(device, "format=xml"), "format");
    assertBadRequest(path(device, "format=csv"), "metrics");
    assertBadRequest(path(device, "format=csv&metrics=a,,b"), "metrics");
    assertBadRequest(path(device, "format=csv&metrics=a,a"), "metrics");
    assertBadRequest(path(device, "from=yesterday"), "from");
    assertBadRequest(path(device, "from=2000&to=1000"), "from");
    assertBadRequest(path(device, "to=x"), "to");
  }

  static void assertBadRequest(String pathAndQuery, String field) {
    HttpResponse<String> r = s.get(pathAndQuery);
    assertThat(r.statusCode()).as(pathAndQuery + ": " + r.body()).isEqualTo(400);
    JsonObject problem = new JsonObject(r.body());
    ApiSchemas.assertMatches("Problem", problem, pathAndQuery);
    assertThat(problem.getJsonArray("errors").getJsonObject(0).getString("field")).isEqualTo(field);
  }

  @Test
  void aSlowReaderKeepsTheBufferedBytesUnderEightMebibytes() throws Exception {
    double eventsBefore = s.counter("amber.export.events");
    double pausedBefore = s.counter("amber.export.paused");
    AtomicLong sampledMax = new AtomicLong();
    try (RawExport x = new RawExport(path(device, ""))) {
      int lines = 0;
      while (true) {
        // read only while the export is held back by this client (or has read everything): the
        // client is always the slower side
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  sampledMax.accumulateAndGet(
                      (long) meter("amber.export.buffered.bytes"), Math::max);
                  return meter("amber.export.waiting") == 1
                      || s.counter("amber.export.events") - eventsBefore >= EVENTS;
                });
        int got = x.readLines(256 * 1024);
        if (got < 0) {
          break;
        }
        lines += got;
      }
      assertThat(lines).isEqualTo(EVENTS);
    }
    assertThat(s.counter("amber.export.paused") - pausedBefore)
        .as("times the export waited for this client")
        .isGreaterThan(1);
    double peak = meter("amber.export.buffered.peak.bytes");
    LOG.info(
        "FIGURE slow reader: buffered bytes peak {} (sampled max {})", (long) peak, sampledMax);
    assertThat(sampledMax.get()).isLessThan(8 * MIB);
    assertThat(peak).isGreaterThan(0).isLessThan(8 * MIB);
  }

  @Test
  void aClientThatDisconnectsStopsTheReads() throws Exception {
    double ended = s.counter("amber.export.ended", "outcome", "disconnected");
    double eventsBefore = s.counter("amber.export.events");
    double paused = s.counter("amber.export.paused");
    // NDJSON (about 7 MB here): more than the socket buffers hold (4 MB at most on Linux)
    try (RawExport x = new RawExport(path(device, "format=ndjson"))) {
      assertThat(x.readLines(4096)).isPositive();
      await().atMost(Duration.ofSeconds(30)).until(() -> s.counter("amber.export.paused") > paused);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> s.counter("amber.export.ended", "outcome", "disconnected") > ended);
    double read = s.counter("amber.export.events") - eventsBefore;
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> s.counter("amber.export.events") - eventsBefore == read);
    assertThat(read).isLessThan(EVENTS);
    assertThat(meter("amber.export.active")).isZero();
    LOG.info("disconnect: {} of {} events read before the reads stopped", (long) read, EVENTS);
  }

  @Test
  void aClientThatStopsReadingIsDroppedAfterTheStallTimeout() throws Exception {
    double stalled = s.counter("amber.export.ended", "outcome", "stalled");
    try (RawExport x = new RawExport(path(device, ""))) {
      assertThat(x.readLines(1024)).isPositive();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.counter("amber.export.ended", "outcome", "stalled") > stalled);
      assertThat(meter("amber.export.active")).isZero();
      assertThat(x.drainUntilClosed()).as("the connection is closed, the body cut").isTrue();
    }
  }

  @Test
  void beyondTheCapAnExportGets429AsAProblem() throws Exception {
    try (RawExport a = new RawExport(path(device, ""));
        RawExport b = new RawExport(path(device, ""))) {
      a.readLines(1024);
      b.readLines(1024);
      await().atMost(Duration.ofSeconds(10)).until(() -> meter("amber.export.active") == 2);
      HttpResponse<String> r = s.get(path(device, ""));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
      assertThat(r.headers().firstValue("Retry-After")).isPresent();
      JsonObject problem = new JsonObject(r.body());
      ApiSchemas.assertMatches("Problem", problem, "the export over the cap");
      assertThat(problem.getString("detail")).contains("export.max-concurrent");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> meter("amber.export.active") == 0);
  }

  @Test
  void anExportSlowsToTheKeysRateInsteadOfFailing() throws Exception {
    // 10,000 events owe 10 tokens; at 2 a second (a burst of 2, one taken by the request) the
    // export cannot end before about 4.5 s, and it still ends whole
    String dev = "rate-" + UUID.randomUUID().toString().substring(0, 8);
    long base = System.currentTimeMillis() - 3_600_000L;
    List<Ev> events = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      events.add(new Ev(base + i * 10L, String.format("r%05d", i)));
    }
    load(dev, events);
    String key = TestKeys.create("export-rate", Set.of(Scope.EVENTS_READ), List.of(), 2);
    long t0 = System.nanoTime();
    HttpResponse<Stream<String>> r = stream(path(dev, ""), key);
    assertThat(r.statusCode()).isEqualTo(200);
    long lines;
    try (Stream<String> body = r.body()) {
      lines = body.count();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertThat(lines).isEqualTo(10_000);
    assertThat(seconds).as("export of 10,000 events at 2 tokens/s").isGreaterThan(3.5);
    LOG.info("rate: 10,000 events at 2 tokens/s took {} s", String.format("%.1f", seconds));
  }

  /**
   * An export over a plain socket with a small receive buffer, so the test decides how fast the
   * body is read: the status line and headers are read at once, the chunked body on demand.
   */
  final class RawExport implements AutoCloseable {
    private final Socket socket = new Socket();
    private final InputStream in;
    private int chunkLeft;
    private boolean done;

    RawExport(String pathAndQuery) throws IOException {
      socket.setReceiveBufferSize(16 * 1024);
      socket.connect(new InetSocketAddress("127.0.0.1", s.port()), 5000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET "
                  + pathAndQuery
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + TestKeys.admin()
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      in = socket.getInputStream();
      String status = line();
      assertThat(status).startsWith("HTTP/1.1 200");
      String h;
      boolean chunked = false;
      while (!(h = line()).isEmpty()) {
        chunked |= h.equalsIgnoreCase("transfer-encoding: chunked");
      }
      assertThat(chunked).as("a chunked body").isTrue();
    }

    private String line() throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          throw new IOException("closed in a line");
        }
        if (c != '\r') {
          b.write(c);
        }
      }
      return b.toString(StandardCharsets.US_ASCII);
    }

    /** Reads about {@code bytes} of the body; the newlines in them, or -1 at its end. */
    int readLines(int bytes) throws IOException {
      if (done) {
        return -1;
      }
      int lines = 0;
      byte[] buf = new byte[8192];
      int left = bytes;
      while (left > 0) {
        if (chunkLeft == 0) {
          String size = line();
          if (size.isEmpty()) {
            size = line(); // the CRLF after the previous chunk's data
          }
          chunkLeft = Integer.parseInt(size.trim(), 16);
          if (chunkLeft == 0) {
            done = true;
            return lines;
          }
        }
        int n = in.read(buf, 0, Math.min(buf.length, Math.min(chunkLeft, left)));
        if (n < 0) {
          throw new IOException("closed inside a chunk");
        }
        for (int i = 0; i < n; i++) {
          if (buf[i] == '\n') {
            lines++;
          }
        }
        chunkLeft -= n;
        left -= n;
      }
      return lines;
    }

    /** Reads what is left; true if the connection closed before the body's last chunk. */
    boolean drainUntilClosed() {
      try {
        while (readLines(1 << 20) >= 0) {
          // keep reading
        }
        return false;
      } catch (IOException | RuntimeException e) {
        return true;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
