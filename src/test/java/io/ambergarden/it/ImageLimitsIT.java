package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.localrt.S3ProxyServer;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Device images at their limits: many large uploads at once (the heap stays flat: bodies stream),
 * the object store down (503, nothing written), and bad input (4xx problems naming the field).
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class ImageLimitsIT {
  static final int MIB = 1 << 20;
  static TestService s;
  static S3Client s3;
  static CqlSession cql;
  static String bucket;

  @BeforeAll
  static void start() {
    s =
        TestService.start(
            Map.of(
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                "media.s3.bucket", "it-limits",
                "media.purge-after", "0s",
                "media.sweep.enabled", "true",
                "media.sweep.interval", "1s",
                "media.sweep.bucket", "1s"));
    bucket = s.config().media().s3Bucket();
    s3 = Images.s3();
    cql = TestService.cql();
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (cql != null) {
      cql.close();
    }
  }

  static String device() {
    return "cam-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * The service process's live heap: a full collection in it (jcmd GC.run), then the heap in use as
   * the JVM reports it (jcmd GC.heap_info), in bytes.
   */
  static long liveHeap(ServiceProcess service) throws Exception {
    jcmd(service, "GC.run");
    long usedKb = 0;
    Matcher m = HEAP_USED.matcher(jcmd(service, "GC.heap_info"));
    while (m.find()) {
      usedKb += Long.parseLong(m.group(1));
    }
    assertThat(usedKb).as("heap use read from jcmd GC.heap_info").isPositive();
    return usedKb * 1024;
  }

  /** The heap lines of GC.heap_info for G1, Serial and Parallel collectors. */
  static final Pattern HEAP_USED =
      Pattern.compile(
          "(?m)^\\s*(?:garbage-first heap|def new generation|tenured generation|PSYoungGen|ParOldGen)"
              + "\\s+total \\d+K, used (\\d+)K");

  static String jcmd(ServiceProcess service, String command) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(service.process().pid()), command)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("jcmd " + command).isTrue();
    assertThat(p.exitValue()).as("jcmd %s: %s", command, out).isZero();
    return out;
  }

  @Test
  void fiftyConcurrentTenMebibyteUploadsKeepTheServicesHeapFlat() throws Exception {
    int uploads = 50;
    long size = 10L * MIB;
    String device = device();
    // the service in its own JVM with a 512 MiB heap: 500 MiB held anywhere in it would not fit,
    // and its heap is measured without this test's own client in it
    try (ServiceProcess service =
        ServiceProcess.start(
            "images-heap",
            Map.of(
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                "media.s3.bucket", bucket))) {
      // one warm-up upload, so the baseline has the classes and pools an upload needs
      Images.GeneratedBody warm = new Images.GeneratedBody(MIB, 99, new AtomicLong());
      assertThat(send(service, device, warm, MIB).join().statusCode()).isEqualTo(201);
      long baseline = liveHeap(service);
      long maxLive = 0;
      long minLive = Long.MAX_VALUE;
      int probes = 0;
      AtomicLong sent = new AtomicLong();
      List<Images.GeneratedBody> bodies = new ArrayList<>();
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < uploads; i++) {
        Images.GeneratedBody body = new Images.GeneratedBody(size, i, sent);
        bodies.add(body);
        answers.add(send(service, device, body, size));
      }
      CompletableFuture<Void> all =
          CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
      long total = uploads * size;
      while (true) {
        // the live heap at a quarter, half and three quarters of the bytes sent
        if (probes < 3 && sent.get() >= total * (probes + 1) / 4) {
          probes++;
          long live = liveHeap(service);
          maxLive = Math.max(maxLive, live);
          minLive = Math.min(minLive, live);
        }
        try {
          all.get(20, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          // still uploading: look again
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long growth = maxLive - baseline;
      ItLog.printf(
          "[ImageLimitsIT] %d x %d MiB uploads in %.1f s (%.1f MB/s); service live heap before"
              + " %d MiB, %d..%d MiB while they streamed (growth %d MiB, %d probes, -Xmx512m)%n",
          uploads,
          size / MIB,
          seconds,
          total / 1e6 / seconds,
          baseline / MIB,
          minLive / MIB,
          maxLive / MIB,
          growth / MIB,
          probes);
      assertThat(probes).as("live-heap probes while the uploads ran").isGreaterThanOrEqualTo(2);
      for (int i = 0; i < uploads; i++) {
        HttpResponse<String> r = answers.get(i).get();
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonObject img = new JsonObject(r.body());
        assertThat(img.getLong("bytes")).isEqualTo(size);
        assertThat(img.getString("sha256")).isEqualTo(bodies.get(i).sha256());
      }
      // 500 MiB went through: what the service holds is a bounded buffer per upload in flight
      // (about 1.2 MiB measured: the chunks a paused request has already taken off its socket,
      // copied to heap by Vert.x, plus the store connection's write queue), not the bytes; two
      // MiB each is a fifth of the data, where keeping whole images would need all of it
      assertThat(growth)
          .as("service live heap growth while %d MiB streamed", total / MIB)
          .isLessThan(uploads * 2 * MIB);
      // (the spread across the probes, printed above, moves with how many uploads happen to have
      // full queues at that moment, 10-30 MiB here; retained bytes would grow with every probe)
      // the blobs are whole in the store; then soft delete, and the sweeper purges them
      List<String> ids = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> a : answers) {
        ids.add(new JsonObject(a.get().body()).getString("imageId"));
      }
      String key =
          cql.execute(
                  "SELECT object_key FROM "
                      + TestService.KEYSPACE
                      + ".image_by_id WHERE image_id = ?",
                  UUID.fromString(ids.get(0)))
              .one()
              .getString(0);
      assertThat(s3.headObject(b -> b.bucket(bucket).key(key)).contentLength()).isEqualTo(size);
      for (String id : ids) {
        assertThat(Images.delete(s, "/api/v1/images/" + id).statusCode()).isEqualTo(204);
      }
    }
  }

  /** One upload over HTTP/1.1 (a connection per upload, as devices do), its body generated. */
  static CompletableFuture<HttpResponse<String>> send(
      ServiceProcess service, String device, Images.GeneratedBody body, long size) {
    return UPLOADER.sendAsync(
        HttpRequest.newBuilder(service.uri("/api/v1/devices/" + device + "/images?tags=load"))
            .header("Content-Type", "image/png")
            .header("Authorization", "Bearer " + TestKeys.admin())
            .timeout(Duration.ofMinutes(3))
            .POST(HttpRequest.BodyPublishers.fromPublisher(body, size))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static final java.net.http.HttpClient UPLOADER =
      java.net.http.HttpClient.newBuilder()
          .version(java.net.http.HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @Test
  void objectStoreDownGives503WithRetryAfterAndWritesNothing() {
    String device = device();
    String stored =
        new JsonObject(Images.upload(s, device(), "", "image/png", Images.png(1000, 1)).body())
            .getString("imageId");
    S3ProxyServer store = RealServers.runtime().objectStore();
    store.stop();
    try {
      HttpResponse<String> r =
          Images.upload(s, device, "?tags=down", "image/png", Images.png(50_000, 2));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).isPresent();
      assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
      HttpResponse<String> bytes = s.get("/api/v1/images/" + stored + "/content");
      assertThat(bytes.statusCode()).as(bytes.body()).isEqualTo(503);
      assertThat(bytes.headers().firstValue("Retry-After")).isPresent();
      // nothing half-written: no metadata, no index row, no month of the index
      String ks = TestService.KEYSPACE;
      assertThat(
              cql.execute(
                      "SELECT * FROM " + ks + ".image_months_by_device WHERE device_id = ?", device)
                  .all())
          .isEmpty();
      assertThat(
              cql.execute("SELECT * FROM " + ks + ".image_months_by_tag WHERE tag = 'down'").all())
          .isEmpty();
      assertThat(
              new JsonObject(s.get("/api/v1/devices/" + device + "/images").body())
                  .getJsonArray("items"))
          .isEmpty();
    } finally {
      store.start();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                Images.upload(s, device, "", "image/png", Images.png(1000, 3)).statusCode() == 201);
  }

  static JsonObject problem(HttpResponse<String> r, int status) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
    return new JsonObject(r.body());
  }

  static void field(HttpResponse<String> r, int status, String field) {
    assertThat(problem(r, status).getJsonArray("errors").getJsonObject(0).getString("field"))
        .as(r.body())
        .isEqualTo(field);
  }

  /** Sends the head and the first part of a body, then reads the status line. */
  static String rawStatusLine(String head, int bodyBytes) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", s.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[bodyBytes]);
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
        line.append((char) c);
      }
      return line.toString().trim();
    }
  }

  java.util.Set<String> objectKeys() {
    java.util.Set<String> keys = new java.util.HashSet<>();
    s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().forEach(o -> keys.add(o.key()));
    return keys;
  }

  @Test
  void badInputsGetProblemsNamingWhatWasWrongAndStoreNothing() throws Exception {
    String device = device();
    String path = "/api/v1/devices/" + device + "/images";
    java.util.Set<String> before = objectKeys();
    // 413 from the declared length, before the body arrives (only 1 KiB of 20 MiB was sent)
    assertThat(
            rawStatusLine(
                "POST "
                    + path
                    + " HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
                    + "Authorization: Bearer "
                    + TestKeys.admin()
                    + "\r\n"
                    + "Content-Length: "
                    + 20 * MIB
                    + "\r\n\r\n",
                1024))
        .startsWith("HTTP/1.1 413");
    assertThat(
            rawStatusLine(
                "POST "
                    + path
                    + " HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
                    + "Authorization: Bearer "
                    + TestKeys.admin()
                    + "\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n",
                0))
        .startsWith("HTTP/1.1 411");
    problem(Images.upload(s, device, "", "image/gif", Images.png(100, 1)), 415);
    field(Images.upload(s, device, "", "image/png", Images.jpeg(5000, 1)), 400, "Content-Type");
    field(
        Images.upload(
            s, device, "", "image/jpeg", "not an image at all".getBytes(StandardCharsets.UTF_8)),
        400,
        "Content-Type");
    field(
        Images.upload(s, device, "?tags=a,b,c,d,e,f,g,h,i", "image/png", Images.png(100, 1)),
        400,
        "tags");
    field(
        Images.upload(
            s,
            device,
            "?tags=" + URLEncoder.encode("a b", StandardCharsets.UTF_8),
            "image/png",
            Images.png(100, 1)),
        400,
        "tags");
    field(
        Images.upload(s, device, "?tags=2024-01:x", "image/png", Images.png(100, 1)), 400, "tags");
    field(
        Images.upload(s, device, "?createdAt=yesterday", "image/png", Images.png(100, 1)),
        400,
        "createdAt");
    field(
        Images.upload(
            s,
            device,
            "?createdAt=" + (System.currentTimeMillis() + 86_400_000L),
            "image/png",
            Images.png(100, 1)),
        400,
        "createdAt");
    field(Images.upload(s, "a..b*", "", "image/png", Images.png(100, 1)), 400, "id");
    String wrongDigest = "sha-256=:" + Base64.getEncoder().encodeToString(new byte[32]) + ":";
    field(
        TestService.send(
            HttpRequest.newBuilder(s.uri(path))
                .header("Content-Type", "image/png")
                .header("Content-Digest", wrongDigest)
                .POST(HttpRequest.BodyPublishers.ofByteArray(Images.png(100, 1)))
                .build()),
        400,
        "Content-Digest");
    byte[] good = Images.png(100, 9);
    String rightDigest =
        "sha-256=:"
            + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(Images.sha256(good)))
            + ":";
    HttpResponse<String> ok =
        TestService.send(
            HttpRequest.newBuilder(s.uri(path))
                .header("Content-Type", "image/png")
                .header("Content-Digest", rightDigest)
                .POST(HttpRequest.BodyPublishers.ofByteArray(good))
                .build());
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(201);
    String id = new JsonObject(ok.body()).getString("imageId");
    // of all those uploads only the last one left anything behind
    assertThat(
            cql.execute(
                    "SELECT image_id FROM "
                        + TestService.KEYSPACE
                        + ".images_by_device WHERE device_id = ? AND month = ?",
                    device,
                    io.ambergarden.media.Months.of(System.currentTimeMillis()))
                .all())
        .hasSize(1);
    String stored =
        cql.execute(
                "SELECT object_key FROM "
                    + TestService.KEYSPACE
                    + ".image_by_id WHERE image_id = ?",
                UUID.fromString(id))
            .one()
            .getString(0);
    // the refused digest's blob is removed at once; other blobs may only go (purges), never come
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              java.util.Set<String> added = objectKeys();
              added.removeAll(before);
              assertThat(added).containsExactly(stored);
            });

    String unknown = UUID.randomUUID().toString();
    problem(s.get("/api/v1/images/" + unknown), 404);
    problem(s.get("/api/v1/images/" + unknown + "/content"), 404);
    problem(Images.delete(s, "/api/v1/images/" + unknown), 404);
    problem(
        s.post("/api/v1/images/" + unknown + "/shares", "application/json", "{\"ttlSeconds\":60}"),
        404);
    field(s.get("/api/v1/images/not-a-uuid"), 400, "imageId");
    for (String ttl :
        List.of(
            "{\"ttlSeconds\":0}",
            "{\"ttlSeconds\":999999999}",
            "{\"ttlSeconds\":\"60\"}",
            "{\"ttlSeconds\":1.5}",
            "{}",
            "nonsense")) {
      field(s.post("/api/v1/images/" + id + "/shares", "application/json", ttl), 400, "ttlSeconds");
    }
    problem(s.get("/api/v1/shares/" + "A".repeat(24)), 404);
    problem(s.get("/api/v1/shares/..%2F..%2Fetc"), 404);
    field(s.get(path + "?cursor=forged"), 400, "cursor");
    field(s.get(path + "?limit=0"), 400, "limit");
    field(s.get("/api/v1/tags/a%20b/images"), 400, "tag");
    field(s.get(path + "?from=2026-01-01T00:00:00"), 400, "from");
  }
}
