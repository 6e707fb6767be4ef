package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import com.sun.management.GarbageCollectionNotificationInfo;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.localrt.S3ProxyServer;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.net.Socket;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
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

  /** The most heap in use right after any garbage collection, from the JVM's GC notifications. */
  static final class PostGcHeap implements NotificationListener, AutoCloseable {
    final AtomicLong max = new AtomicLong();
    final AtomicLong collections = new AtomicLong();

    PostGcHeap() {
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).addNotificationListener(this, null, null);
      }
    }

    @Override
    public void handleNotification(javax.management.Notification n, Object handback) {
      if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
        return;
      }
      var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
      long used = 0;
      for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
        if (isHeapPool(e.getKey())) {
          used += e.getValue().getUsed();
        }
      }
      collections.incrementAndGet();
      max.accumulateAndGet(used, Math::max);
    }

    private static boolean isHeapPool(String name) {
      return ManagementFactory.getMemoryPoolMXBeans().stream()
          .anyMatch(
              p -> p.getName().equals(name) && p.getType() == java.lang.management.MemoryType.HEAP);
    }

    @Override
    public void close() throws Exception {
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).removeNotificationListener(this);
      }
    }
  }

  static long liveHeap() {
    System.gc();
    System.gc();
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return heap.getUsed();
  }

  @Test
  void testFiftyConcurrentTenMebibyteUploadsKeepTheHeapFlat() throws Exception {
    int uploads = 50;
    long size = 10L * MIB;
    String device = device();
    BufferPoolMXBean direct =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(b -> b.getName().equals("direct"))
            .findFirst()
            .orElseThrow();
    long baseline = liveHeap();
    long maxDirect = 0;
    long maxLive = 0;
    int probes = 0;
    AtomicLong sent = new AtomicLong();
    List<Images.GeneratedBody> bodies = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    long t0;
    try (PostGcHeap heap = new PostGcHeap()) {
      t0 = System.nanoTime();
      for (int i = 0; i < uploads; i++) {
        Images.GeneratedBody body = new Images.GeneratedBody(size, i, sent);
        bodies.add(body);
        answers.add(
            Images.HTTP.sendAsync(
                HttpRequest.newBuilder(s.uri("/api/v1/devices/" + device + "/images?tags=load"))
                    .header("Content-Type", "image/png")
                    .timeout(Duration.ofMinutes(3))
                    .POST(HttpRequest.BodyPublishers.fromPublisher(body, size))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      CompletableFuture<Void> all =
          CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
      long total = uploads * size;
      while (true) {
        maxDirect = Math.max(maxDirect, direct.getMemoryUsed());
        // the live heap itself (a full collection) at a quarter, half and three quarters sent
        if (probes < 3 && sent.get() >= total * (probes + 1) / 4) {
          probes++;
          maxLive = Math.max(maxLive, liveHeap());
        }
        try {
          all.get(20, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          // still uploading: sample again
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long growth = maxLive - baseline;
      System.out.printf(
          "[ImageLimitsIT] %d x %d MiB uploads in %.1f s (%.1f MB/s); live heap before %d MiB,"
              + " most live heap mid-flight %d MiB (growth %d MiB, %d probes); most heap after any"
              + " GC %d MiB (%d GCs); JDK direct buffers peak %d MiB%n",
          uploads,
          size / MIB,
          seconds,
          total / 1e6 / seconds,
          baseline / MIB,
          maxLive / MIB,
          growth / MIB,
          probes,
          heap.max.get() / MIB,
          heap.collections.get(),
          maxDirect / MIB);
      assertThat(probes).as("live-heap probes while the uploads ran").isGreaterThanOrEqualTo(2);
      // 500 MiB went through the service (and this JVM's client): holding even a tenth of it
      // would show here
      assertThat(growth)
          .as("live heap growth while %d MiB streamed", total / MIB)
          .isLessThan(48L * MIB);
    }
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < uploads; i++) {
      HttpResponse<String> r = answers.get(i).get();
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      JsonObject img = new JsonObject(r.body());
      assertThat(img.getLong("bytes")).isEqualTo(size);
      assertThat(img.getString("sha256")).isEqualTo(bodies.get(i).sha256());
      ids.add(img.getString("imageId"));
    }
    // the blobs are whole in the store
    for (String id : ids.subList(0, 3)) {
      String key =
          cql.execute(
                  "SELECT object_key FROM "
                      + TestService.KEYSPACE
                      + ".image_by_id WHERE image_id = ?",
                  UUID.fromString(id))
              .one()
              .getString(0);
      assertThat(s3.headObject(b -> b.bucket(bucket).key(key)).contentLength()).isEqualTo(size);
    }
    // leave nothing big behind: soft delete, the sweeper purges
    for (String id : ids) {
      assertThat(Images.delete(s, "/api/v1/images/" + id).statusCode()).isEqualTo(204);
    }
  }

  @Test
  void testObjectStoreDownGives503WithRetryAfterAndWritesNothing() {
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
    try (Socket socket = new Socket("127.0.0.1", s.config().http().port())) {
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

  long objectCount() {
    return s3.listObjectsV2(b -> b.bucket(bucket)).keyCount();
  }

  @Test
  void testBadInputsGetProblemsNamingWhatWasWrongAndStoreNothing() throws Exception {
    String device = device();
    String path = "/api/v1/devices/" + device + "/images";
    long objects = objectCount();
    // 413 from the declared length, before the body arrives (only 1 KiB of 20 MiB was sent)
    assertThat(
            rawStatusLine(
                "POST "
                    + path
                    + " HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
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
    await().atMost(Duration.ofSeconds(10)).until(() -> objectCount() == objects + 1);

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
