package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServers.class)
@Timeout(400)
class CountersIT {
  /** A timestamp well inside the current UTC day, so every event of a test counts on one day. */
  static long todayTs() {
    long now = System.currentTimeMillis();
    long dayStart =
        LocalDate.now(ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    return Math.max(dayStart + 1000, now - 60_000);
  }

  static String event(String device, long ts, String id, String status, Integer code) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + ts
        + ",\"eventId\":\""
        + id
        + "\",\"status\":\""
        + status
        + "\""
        + (code == null ? "" : ",\"code\":" + code)
        + "}";
  }

  static JsonObject statusStats(TestService s, long ts) {
    LocalDate day = LocalDate.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC);
    HttpResponse<String> r = s.get("/api/v1/stats/status?day=" + day);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  static long statusCount(TestService s, long ts, String status) {
    return statusStats(s, ts).getJsonObject("byStatus").getLong(status, 0L);
  }

  @Test
  void testConcurrentHttpAndKafkaIngestCountsEveryEventOnce() throws Exception {
    String status = "st-" + UUID.randomUUID().toString().substring(0, 8);
    int code = 600 + ThreadLocalRandom.current().nextInt(300);
    long ts = todayTs();
    int devices = 20;
    int perPath = 400;
    try (TestService s = TestService.start(Map.of());
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int thread = t;
        work.add(
            pool.submit(
                () -> {
                  for (int i = thread * 10; i < perPath; i += 30) {
                    StringBuilder body = new StringBuilder("[");
                    for (int j = i; j < Math.min(perPath, i + 10); j++) {
                      body.append(j == i ? "" : ",")
                          .append(
                              event(
                                  "cnt-" + status + "-" + (j % devices),
                                  ts + j,
                                  "h" + j,
                                  status,
                                  code));
                    }
                    HttpResponse<String> r = s.postEvents(body.append("]").toString());
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                  }
                }));
      }
      work.add(
          pool.submit(
              () -> {
                for (int i = 0; i < perPath; i++) {
                  String d = "cnt-" + status + "-" + (i % devices);
                  producer.send(
                      new org.apache.kafka.clients.producer.ProducerRecord<>(
                          s.topic(),
                          d.getBytes(StandardCharsets.UTF_8),
                          event(d, ts + i, "k" + i, status, code)
                              .getBytes(StandardCharsets.UTF_8)));
                }
                producer.flush();
              }));
      for (Future<?> f : work) {
        f.get();
      }
      pool.shutdown();
      int total = 2 * perPath;
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(s.config().kafka().groupId(), s.topic()) == total);
      // once offsets are committed, the counters are already written
      JsonObject stats = statusStats(s, ts);
      assertThat(stats.getJsonObject("byStatus").getLong(status)).isEqualTo(total);
      assertThat(stats.getJsonObject("byCode").getLong(Integer.toString(code)))
          .isGreaterThanOrEqualTo(total);
      assertThat(stats.getInteger("shards")).isEqualTo(16);
      long sumOfDevices = 0;
      for (int d = 0; d < devices; d++) {
        JsonObject c =
            new JsonObject(s.get("/api/v1/devices/cnt-" + status + "-" + d + "/counters").body());
        assertThat(c.getJsonObject("byStatus").getLong(status)).isEqualTo(c.getLong("total"));
        sumOfDevices += c.getLong("total");
      }
      assertThat(sumOfDevices).isEqualTo(total);
    }
  }

  @Test
  void testCrashAndReplayKeepCountersBetweenAcknowledgedAndAttempted() throws Exception {
    String status = "crash-" + UUID.randomUUID().toString().substring(0, 8);
    String topic = "it-crash-" + UUID.randomUUID().toString().substring(0, 8);
    String group = topic + "-group";
    int total = 20_000;
    long ts = todayTs();
    Kafkas.createTopic(topic, 2);
    try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      for (int i = 0; i < total; i++) {
        String d = "crash-dev-" + (i % 50);
        producer.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                topic,
                d.getBytes(StandardCharsets.UTF_8),
                event(d, ts + (i % 1000), "c" + i, status, 200).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    Map<String, String> cfg =
        Map.of(
            "kafka.topic",
            topic,
            "kafka.dlq-topic",
            topic + ".dlq",
            "kafka.group-id",
            group,
            "kafka.consumer.commit-interval",
            "200ms",
            "kafka.consumer.max-in-flight",
            "500",
            "kafka.consumer.write-batch",
            "100");
    long committedAtCrash;
    try (ServiceProcess first = ServiceProcess.start("crash", cfg)) {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> Kafkas.committedTotal(group, topic) >= total / 10);
      first.crash();
      committedAtCrash = Kafkas.committedTotal(group, topic);
    }
    assertThat(committedAtCrash)
        .as("the crash must happen mid-stream for the test to mean anything")
        .isLessThan(total);
    try (TestService second = TestService.start(cfg)) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Kafkas.committedTotal(group, topic) == total);
      long counted = statusCount(second, ts, status);
      // every record was acknowledged once; at most the uncommitted ones were attempted twice
      assertThat(counted).isBetween((long) total, total + (total - committedAtCrash));
    }
  }

  /**
   * F6: Cassandra pauses (SIGSTOP) while events flow, so counter flushes hang past the event-bus
   * timeout and the consumer sends the same batches again while the first attempts are still
   * pending. Each event must still count exactly once.
   */
  @Test
  void testAFlushSlowedPastTheRequestTimeoutStillCountsEachEventOnce() throws Exception {
    String status = "pause-" + UUID.randomUUID().toString().substring(0, 8);
    long ts = todayTs();
    int total = 3000;
    int devices = 30;
    Map<String, String> cfg =
        Map.of(
            // the bus gives up after 2 s, the driver waits the pause out (no unknown outcomes)
            "writer.request-timeout", "2s",
            "cassandra.request-timeout", "20s",
            "kafka.consumer.write-batch", "100",
            "kafka.consumer.max-in-flight", "1000",
            "kafka.retry.max-backoff", "500ms");
    CassandraNode cassandra = RealServers.runtime().cassandra();
    ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    try (TestService s = TestService.start(cfg);
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      String group = s.config().kafka().groupId();
      AtomicInteger sent = new AtomicInteger();
      // about 300 events/s for 10 s
      pacer.scheduleAtFixedRate(
          () -> {
            for (int k = 0; k < 3 && sent.get() < total; k++) {
              int i = sent.getAndIncrement();
              String d = "pause-" + status + "-" + (i % devices);
              producer.send(
                  new org.apache.kafka.clients.producer.ProducerRecord<>(
                      s.topic(),
                      d.getBytes(StandardCharsets.UTF_8),
                      event(d, ts + i, "p" + i, status, 200).getBytes(StandardCharsets.UTF_8)));
            }
          },
          0,
          10,
          TimeUnit.MILLISECONDS);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(group, s.topic()) >= 500);
      long pausedAt = System.nanoTime();
      cassandra.pause();
      try {
        // write requests time out on the bus while their writes hang: the breaker opens, and the
        // batches are sent again while the first attempts are still pending
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    "FAILING"
                        .equals(
                            new JsonObject(s.get("/health/ready").body())
                                .getJsonObject("checks")
                                .getString("writes")));
      } finally {
        cassandra.resume();
      }
      long pausedMs = (System.nanoTime() - pausedAt) / 1_000_000;
      await().atMost(Duration.ofSeconds(60)).until(() -> sent.get() >= total);
      producer.flush();
      long resumedAt = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Kafkas.committedTotal(group, s.topic()) == total);
      long recoveredMs = (System.nanoTime() - resumedAt) / 1_000_000;
      String metrics = s.get("/metrics").body();
      double duplicates = PrometheusText.sum(metrics, "amber_counter_duplicates_total");
      double unknown = PrometheusText.sum(metrics, "amber_counter_unknown_outcomes_total");
      long counted = statusCount(s, ts, status);
      long sumOfDevices = 0;
      for (int d = 0; d < devices; d++) {
        JsonObject c =
            new JsonObject(s.get("/api/v1/devices/pause-" + status + "-" + d + "/counters").body());
        sumOfDevices += c.getLong("total");
      }
      System.out.printf(
          "counter pause: %d events, paused %d ms, all committed %d ms after the producer ended;"
              + " counted %d (status) / %d (devices), increments not resent %.0f, unknown"
              + " outcomes %.0f%n",
          total, pausedMs, recoveredMs, counted, sumOfDevices, duplicates, unknown);
      assertThat(unknown).as("the driver waited the pause out").isZero();
      assertThat(duplicates)
          .as("batches were asked for again while counted or pending (the fault happened)")
          .isPositive();
      assertThat(counted).isEqualTo(total);
      assertThat(sumOfDevices).isEqualTo(total);
    } finally {
      pacer.shutdownNow();
    }
  }

  @Test
  void testAbnormalQueryCountsEachDeviceOncePerCode() {
    int code = 600 + ThreadLocalRandom.current().nextInt(300);
    String prefix = "abn-" + UUID.randomUUID().toString().substring(0, 6);
    long now = System.currentTimeMillis();
    try (TestService s =
        TestService.start(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"))) {
      StringBuilder body = new StringBuilder("[");
      for (int i = 0; i < 5; i++) {
        body.append(event(prefix + "-x", now - i * 1000, "x" + i, "degraded", code)).append(',');
      }
      body.append(event(prefix + "-x", now - 10, "x-other", "degraded", code + 1)).append(',');
      body.append(event(prefix + "-y", now - 20, "y0", "degraded", code)).append(',');
      body.append(event(prefix + "-z", now - 30, "z0", "fault", null)).append(',');
      // old: outside a 10-minute window, inside the hour of the table
      body.append(event(prefix + "-old", now - 20 * 60_000, "o0", "degraded", code)).append(',');
      body.append(event(prefix + "-ok", now - 40, "n0", "normal", 200)).append(']');
      assertThat(s.postEvents(body.toString()).statusCode()).isEqualTo(202);

      JsonObject r = new JsonObject(s.get("/api/v1/stats/abnormal?minutes=10").body());
      JsonObject main = byCode(r.getJsonArray("byCode"), code);
      assertThat(main.getInteger("devices")).isEqualTo(2);
      assertThat(main.getJsonArray("deviceIds").getList())
          .containsExactlyInAnyOrder(prefix + "-x", prefix + "-y");
      assertThat(byCode(r.getJsonArray("byCode"), code + 1).getJsonArray("deviceIds").getList())
          .containsExactly(prefix + "-x");
      assertThat(
              r.getJsonArray("byCode").stream()
                  .map(o -> (JsonObject) o)
                  .filter(o -> o.getValue("code") == null)
                  .flatMap(o -> o.getJsonArray("deviceIds").stream()))
          .contains(prefix + "-z");
      JsonObject wide =
          byCode(
              new JsonObject(s.get("/api/v1/stats/abnormal?minutes=60").body())
                  .getJsonArray("byCode"),
              code);
      assertThat(wide.getJsonArray("deviceIds").getList()).contains(prefix + "-old");

      assertThat(s.get("/api/v1/stats/abnormal?minutes=0").statusCode()).isEqualTo(400);
      assertThat(s.get("/api/v1/stats/abnormal?minutes=99999999").statusCode()).isEqualTo(400);
      assertThat(s.get("/api/v1/stats/abnormal?minutes=ten").statusCode()).isEqualTo(400);
      assertThat(s.get("/api/v1/stats/status?day=2026-02-30").statusCode()).isEqualTo(400);
      assertThat(s.get("/api/v1/stats/status?day=yesterday").statusCode()).isEqualTo(400);
    }
  }

  static JsonObject byCode(JsonArray codes, int code) {
    return codes.stream()
        .map(o -> (JsonObject) o)
        .filter(o -> Integer.valueOf(code).equals(o.getInteger("code")))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no entry for code " + code + " in " + codes.encode()));
  }
}
