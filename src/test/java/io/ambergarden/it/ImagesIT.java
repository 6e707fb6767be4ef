package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.media.ObjectKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Device images against the real Cassandra and the real S3-compatible store (S3Proxy): the blob
 * first, then the metadata; lists across months with keyset paging; shares; soft delete and the
 * sweeper.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class ImagesIT {
  static final java.nio.file.Path CHROMIUM = java.nio.file.Path.of("/usr/bin/chromium");
  static final java.nio.file.Path CHROMEDRIVER = java.nio.file.Path.of("/usr/bin/chromedriver");
  static TestService s;
  static S3Client s3;
  static CqlSession cql;
  static String bucket;

  @BeforeAll
  static void start() {
    s =
        TestService.start(
            Map.ofEntries(
                Map.entry("ingest.mode", "direct"),
                Map.entry("kafka.consumer.enabled", "false"),
                Map.entry("media.s3.bucket", "it-images"),
                Map.entry("media.share.min-ttl", "1s"),
                Map.entry("media.purge-after", "0s"),
                Map.entry("media.orphan-grace", "20s"),
                Map.entry("media.upload-deadline", "5s"),
                Map.entry("media.sweep.enabled", "true"),
                Map.entry("media.sweep.interval", "500ms"),
                Map.entry("media.sweep.lease-ttl", "3s"),
                Map.entry("media.sweep.bucket", "2s")));
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

  static JsonObject created(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return new JsonObject(r.body());
  }

  static Row imageRow(String imageId) {
    return cql.execute(
            "SELECT object_key, status, purged_at, sha256 FROM "
                + TestService.KEYSPACE
                + ".image_by_id WHERE image_id = ?",
            UUID.fromString(imageId))
        .one();
  }

  @Test
  void uploadThenMetadataAndBytesReadBackWithTheSameSha256() {
    String device = device();
    byte[] body = Images.png(300_000, 1);
    JsonObject img =
        created(Images.upload(s, device, "?tags=Pump-3,inspection", "image/png", body));
    assertThat(img.getString("sha256")).isEqualTo(Images.sha256(body));
    assertThat(img.getLong("bytes")).isEqualTo(body.length);
    assertThat(img.getString("deviceId")).isEqualTo(device);
    assertThat(img.getString("contentType")).isEqualTo("image/png");
    assertThat(img.getJsonArray("tags")).containsExactly("pump-3", "inspection");
    assertThat(img.getLong("createdAt")).isCloseTo(System.currentTimeMillis(), within(60_000));
    String id = img.getString("imageId");

    HttpResponse<String> meta = s.get("/api/v1/images/" + id);
    assertThat(meta.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(meta.body())).isEqualTo(img);

    HttpResponse<byte[]> content = Images.bytes(s.uri("/api/v1/images/" + id + "/content"));
    assertThat(content.statusCode()).isEqualTo(200);
    assertThat(Images.sha256(content.body())).isEqualTo(img.getString("sha256"));
    assertThat(content.body()).isEqualTo(body);
    assertThat(content.headers().firstValue("Content-Type")).contains("image/png");
    assertThat(content.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    String etag = content.headers().firstValue("ETag").orElseThrow();
    HttpResponse<String> again =
        TestService.send(
            HttpRequest.newBuilder(s.uri("/api/v1/images/" + id + "/content"))
                .header("If-None-Match", etag)
                .build());
    assertThat(again.statusCode()).isEqualTo(304);

    // the blob is where the metadata says, and holds exactly these bytes
    Row row = imageRow(id);
    assertThat(row.getString("status")).isEqualTo("active");
    assertThat(row.getString("sha256")).isEqualTo(Images.sha256(body));
    assertThat(
            Images.sha256(
                s3.getObjectAsBytes(b -> b.bucket(bucket).key(row.getString("object_key")))
                    .asByteArray()))
        .isEqualTo(Images.sha256(body));
  }

  /** Lists newest first, walking back over the month partitions, one page at a time. */
  static List<JsonObject> walk(String path, int limit, Runnable afterFirstPage) {
    List<JsonObject> out = new ArrayList<>();
    String cursor = null;
    for (int page = 0; page < 200; page++) {
      String sep = path.contains("?") ? "&" : "?";
      HttpResponse<String> r =
          s.get(path + sep + "limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonObject p = new JsonObject(r.body());
      p.getJsonArray("items").forEach(o -> out.add((JsonObject) o));
      if (page == 0) {
        afterFirstPage.run();
      }
      cursor = p.getString("next");
      if (cursor == null) {
        return out;
      }
    }
    throw new AssertionError("paging did not end");
  }

  static double listReads() {
    String metrics = s.get("/metrics").body();
    return metrics
        .lines()
        .filter(l -> l.startsWith("amber_media_list_reads_total"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  @Test
  void listsByDeviceAndTagWalkMonthsWithKeysetPagingEachImageOnceUnderConcurrentInserts()
      throws Exception {
    String device = device();
    String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
    YearMonth now = YearMonth.now(ZoneOffset.UTC);
    long thisMonth = now.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
    long threeBack =
        now.minusMonths(3).atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
    Map<String, Long> existing = new HashMap<>();
    for (int i = 0; i < 6; i++) {
      // both sides of the month boundary, and three months back (two empty months between)
      for (long at :
          new long[] {thisMonth + 1000 + i, thisMonth - 1000 - i, threeBack + 86_400_000L + i}) {
        JsonObject img =
            created(
                Images.upload(
                    s,
                    device,
                    "?tags=" + tag + "&createdAt=" + at,
                    "image/png",
                    Images.png(100, at)));
        existing.put(img.getString("imageId"), at);
      }
    }
    JsonObject deleted =
        created(
            Images.upload(
                s,
                device,
                "?tags=" + tag + "&createdAt=" + (thisMonth - 5000),
                "image/png",
                Images.png(100, 7)));
    assertThat(Images.delete(s, "/api/v1/images/" + deleted.getString("imageId")).statusCode())
        .isEqualTo(204);

    for (String path :
        List.of("/api/v1/devices/" + device + "/images", "/api/v1/tags/" + tag + "/images")) {
      ExecutorService uploader = Executors.newSingleThreadExecutor();
      List<String> behind = new ArrayList<>();
      List<Future<String>> racing = new ArrayList<>();
      List<JsonObject> got =
          walk(
              path,
              4,
              () -> {
                // inserted while the client pages: older than its cursor, so they must show up
                for (int i = 0; i < 3; i++) {
                  long at = threeBack + 3_600_000L + i;
                  behind.add(
                      created(
                              Images.upload(
                                  s,
                                  device,
                                  "?tags=" + tag + "&createdAt=" + at,
                                  "image/png",
                                  Images.png(100, at)))
                          .getString("imageId"));
                }
                // and newer ones racing with the following pages: never shown in this walk
                for (int i = 0; i < 5; i++) {
                  racing.add(
                      uploader.submit(
                          () ->
                              created(
                                      Images.upload(
                                          s,
                                          device,
                                          "?tags=" + tag,
                                          "image/png",
                                          Images.png(100, 99)))
                                  .getString("imageId")));
                }
              });
      uploader.shutdown();
      assertThat(uploader.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
      List<String> ids = got.stream().map(o -> o.getString("imageId")).toList();
      assertThat(ids).as(path).doesNotHaveDuplicates();
      assertThat(ids).as(path).containsAll(existing.keySet()).containsAll(behind);
      assertThat(ids).as(path).doesNotContain(deleted.getString("imageId"));
      Set<String> racingIds = new java.util.HashSet<>();
      for (Future<String> f : racing) {
        racingIds.add(f.get());
      }
      assertThat(ids).as(path).doesNotContainAnyElementsOf(racingIds);
      List<Long> created = got.stream().map(o -> o.getLong("createdAt")).toList();
      assertThat(created)
          .as("newest first")
          .isSortedAccordingTo(java.util.Comparator.reverseOrder());
      behind.forEach(id -> existing.put(id, 0L));
    }
  }

  @Test
  void aListReadsTheMonthIndexAndOnlyTheMonthsThatHoldImages() {
    String device = device();
    YearMonth now = YearMonth.now(ZoneOffset.UTC);
    for (int back : new int[] {0, 1, 3}) {
      long at =
          now.minusMonths(back).atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli()
              + 1000;
      for (int i = 0; i < 2; i++) {
        created(
            Images.upload(s, device, "?createdAt=" + (at + i), "image/png", Images.png(100, i)));
      }
    }
    double before = listReads();
    HttpResponse<String> all = s.get("/api/v1/devices/" + device + "/images?limit=1000");
    assertThat(all.statusCode()).isEqualTo(200);
    JsonArray items = new JsonObject(all.body()).getJsonArray("items");
    assertThat(items.size()).isEqualTo(6);
    assertThat(new JsonObject(all.body()).getString("next")).isNull();
    // one read of the month index, one per month that holds images: the two empty months between
    // are never probed
    assertThat(listReads() - before).isEqualTo(1 + 3);
  }

  @Test
  void aShareIsServedWithoutCredentialsUntilItExpiresThen404() {
    byte[] body = Images.jpeg(5000, 3);
    String id = created(Images.upload(s, device(), "", "image/jpeg", body)).getString("imageId");
    HttpResponse<String> r =
        s.post("/api/v1/images/" + id + "/shares", "application/json", "{\"ttlSeconds\":3}");
    JsonObject share = created(r);
    long expiresAt = share.getLong("expiresAt");
    assertThat(share.getString("url")).isEqualTo("/api/v1/shares/" + share.getString("shareId"));
    HttpResponse<byte[]> served = Images.bytesWithoutCredentials(s.uri(share.getString("url")));
    assertThat(served.statusCode()).isEqualTo(200);
    assertThat(served.body()).isEqualTo(body);
    assertThat(served.headers().firstValue("Cache-Control")).contains("private, no-store");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                Images.bytesWithoutCredentials(s.uri(share.getString("url"))).statusCode() == 404);
    assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(expiresAt - 1000);
    HttpResponse<String> gone = s.get(share.getString("url"));
    assertThat(gone.headers().firstValue("Content-Type")).contains("application/problem+json");
    // and the row is gone from Cassandra too (its TTL), not only hidden
    assertThat(
            cql.execute(
                    "SELECT count(*) FROM "
                        + TestService.KEYSPACE
                        + ".image_shares WHERE share_hash = ?",
                    io.ambergarden.media.ShareTokens.hash(share.getString("shareId")))
                .one()
                .getLong(0))
        .isZero();
  }

  @Test
  void softDeleteHidesTheImageAtOnceAndTheSweeperPurgesItsBlob() {
    String device = device();
    String tag = "del" + UUID.randomUUID().toString().substring(0, 6);
    String id =
        created(Images.upload(s, device, "?tags=" + tag, "image/png", Images.png(2000, 4)))
            .getString("imageId");
    String share =
        created(
                s.post(
                    "/api/v1/images/" + id + "/shares", "application/json", "{\"ttlSeconds\":600}"))
            .getString("url");
    String key = imageRow(id).getString("object_key");
    assertThat(Images.exists(s3, bucket, key)).isTrue();

    assertThat(Images.delete(s, "/api/v1/images/" + id).statusCode()).isEqualTo(204);
    assertThat(s.get("/api/v1/images/" + id).statusCode()).isEqualTo(404);
    assertThat(s.get("/api/v1/images/" + id + "/content").statusCode()).isEqualTo(404);
    assertThat(s.get(share).statusCode()).as("a share of a deleted image").isEqualTo(404);
    assertThat(
            new JsonObject(s.get("/api/v1/devices/" + device + "/images").body())
                .getJsonArray("items"))
        .isEmpty();
    assertThat(
            new JsonObject(s.get("/api/v1/tags/" + tag + "/images").body()).getJsonArray("items"))
        .isEmpty();
    assertThat(Images.delete(s, "/api/v1/images/" + id).statusCode()).isEqualTo(404);
    assertThat(
            s.post("/api/v1/images/" + id + "/shares", "application/json", "{\"ttlSeconds\":60}")
                .statusCode())
        .isEqualTo(404);
    // soft: the rows stay, with a status, so no tombstones pile up
    assertThat(imageRow(id).getString("status")).isEqualTo("deleted");

    // purge-after is 0 here: the blob goes once its purge bucket (2 s) and the safety margin passed
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> !Images.exists(s3, bucket, key));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> imageRow(id).getInstant("purged_at") != null);
  }

  @Test
  void anOrphanBlobIsCollectedWhileBlobsWithMetadataStay() {
    // the state a failed metadata write leaves: a blob under our key layout, no metadata
    UUID orphanId = UUID.randomUUID();
    String orphan = ObjectKeys.key(orphanId, System.currentTimeMillis());
    Images.put(s3, bucket, orphan, Images.png(1000, 5));
    String kept =
        imageRow(
                created(Images.upload(s, device(), "", "image/png", Images.png(1000, 6)))
                    .getString("imageId"))
            .getString("object_key");
    String foreign = "exports/" + UUID.randomUUID();
    Images.put(s3, bucket, foreign, new byte[] {1, 2, 3});

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> !Images.exists(s3, bucket, orphan));
    assertThat(Images.exists(s3, bucket, kept)).as("a blob whose image exists").isTrue();
    assertThat(Images.exists(s3, bucket, foreign)).as("a key outside our layout").isTrue();
    assertThat(
            cql.execute(
                    "SELECT image_id FROM "
                        + TestService.KEYSPACE
                        + ".image_by_id WHERE image_id = ?",
                    orphanId)
                .one())
        .as("the sweeper never writes metadata")
        .isNull();
  }

  /** A real, decodable PNG of w x h pixels. */
  static byte[] realPng(int w, int h, int rgb) throws java.io.IOException {
    java.awt.image.BufferedImage img =
        new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_INT_RGB);
    for (int x = 0; x < w; x++) {
      for (int y = 0; y < h; y++) {
        img.setRGB(x, y, rgb ^ (x * y));
      }
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    javax.imageio.ImageIO.write(img, "png", out);
    return out.toByteArray();
  }

  @Test
  void theDashboardShowsADevicesRecentImages() throws Exception {
    boolean present =
        java.nio.file.Files.isExecutable(CHROMIUM)
            && java.nio.file.Files.isExecutable(CHROMEDRIVER);
    if (!present && System.getenv("CI") != null) {
      throw new IllegalStateException("CI must provide chromium and chromium-driver");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(
        present, "install Debian's chromium and chromium-driver to run the dashboard test");
    String device = device();
    for (int i = 0; i < 3; i++) {
      created(
          Images.upload(s, device, "?tags=dash", "image/png", realPng(40, 30, 0x336699 * (i + 1))));
    }
    org.openqa.selenium.WebDriver browser =
        new org.openqa.selenium.chrome.ChromeDriver(
            new org.openqa.selenium.chrome.ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .build(),
            new org.openqa.selenium.chrome.ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments(
                    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"));
    try {
      // the console's device page, as an operator opens it; auth is on, so it asks for a key once
      browser.get(s.uri("/#/device/" + device).toString());
      var wait = new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(30));
      wait.until(
              org.openqa.selenium.support.ui.ExpectedConditions.visibilityOfElementLocated(
                  org.openqa.selenium.By.id("amber-key")))
          .sendKeys(TestKeys.admin());
      browser.findElement(org.openqa.selenium.By.id("amber-key-submit")).click();
      wait.until(
          b ->
              b.findElements(org.openqa.selenium.By.cssSelector("#device-images figure.loaded"))
                      .size()
                  == 3);
      Object decoded =
          ((org.openqa.selenium.JavascriptExecutor) browser)
              .executeScript(
                  "return [...document.querySelectorAll('#device-images img')]"
                      + ".filter(i => i.complete && i.naturalWidth === 40).length");
      assertThat(((Number) decoded).intValue()).as("images decoded by the browser").isEqualTo(3);
      assertThat(
              browser
                  .findElement(org.openqa.selenium.By.cssSelector("#device-images figcaption"))
                  .getText())
          .contains("dash");
    } finally {
      browser.quit();
    }
  }

  static org.assertj.core.data.Offset<Long> within(long v) {
    return org.assertj.core.data.Offset.offset(v);
  }
}
