package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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

  /**
   * Counts are reconciled by the rollup shard owners: these tests use their own keyspace with short
   * rollup intervals (late marks due within 2 s, buckets of 1 s processed 5 s after they end), so a
   * closed hour is exact within seconds of its events.
   */
  static final String KEYSPACE = "amber_it_counters";

  static Map<String, String> fast(Map<String, String> more) {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.putAll(TestService.fastRollups());
    cfg.putAll(more);
    return cfg;
  }

  static Map<String, String> direct() {
    return fast(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"));
  }

  /** The start of the hour three hours back: closed, so its events are late and reconciled. */
  static long closedHour() {
    long now = System.currentTimeMillis();
    return now - Math.floorMod(now, HOUR) - 3 * HOUR;
  }

  static final long HOUR = 3_600_000L;

  static JsonObject deviceCounters(TestService s, String device) {
    HttpResponse<String> r = s.get("/api/v1/devices/" + device + "/counters");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  static String batch(String device, long hour, int n, String status, int code, String idPrefix) {
    StringBuilder body = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      body.append(i == 0 ? "" : ",")
          .append(
              event(
                  device,
                  hour + 1000L * i,
                  idPrefix + i,
                  i % 3 == 0 ? "fault-" + status : status,
                  i % 3 == 0 ? code + 1 : code));
    }
    return body.append("]").toString();
  }

  /** Waits until the device's hour is reconciled, then returns its counters. */
  static JsonObject exactThrough(TestService s, String device, long hourEnd) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> deviceCounters(s, device),
            c -> c.getLong("exactThrough") != null && c.getLong("exactThrough") >= hourEnd);
  }

  @Test
  void eventsSentAgainToOneInstanceToAnotherAndAfterARestartCountOnceTheirHourIsExact() {
    String status = "dup-" + UUID.randomUUID().toString().substring(0, 8);
    int code = 600 + ThreadLocalRandom.current().nextInt(300);
    String device = "cnt-" + status;
    long hour = closedHour();
    String events = batch(device, hour, 60, status, code, "e");
    LocalDate day = LocalDate.ofInstant(Instant.ofEpochMilli(hour), ZoneOffset.UTC);
    try (TestService a = TestService.start(direct());
        TestService b = TestService.start(direct())) {
      assertThat(a.postEvents(events).statusCode()).isEqualTo(202);
      assertThat(a.postEvents(events).statusCode()).isEqualTo(202);
      assertThat(b.postEvents(events).statusCode()).isEqualTo(202);
      JsonObject c = exactThrough(a, device, hour + HOUR);
      assertThat(c.getLong("total")).isEqualTo(60);
      assertThat(c.getJsonObject("byStatus").getMap())
          .containsExactlyInAnyOrderEntriesOf(Map.of(status, 40, "fault-" + status, 20));
      JsonObject stats =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> new JsonObject(a.get("/api/v1/stats/status?day=" + day).body()),
                  j -> j.getLong("exactThrough", 0L) >= hour + HOUR);
      assertThat(stats.getJsonObject("byStatus").getLong(status)).isEqualTo(40);
      assertThat(stats.getJsonObject("byStatus").getLong("fault-" + status)).isEqualTo(20);
      assertThat(stats.getJsonObject("byCode").getLong(Integer.toString(code))).isEqualTo(40);
      assertThat(stats.getJsonObject("byCode").getLong(Integer.toString(code + 1))).isEqualTo(20);
    }
    // a new process forgets everything an instance kept in memory
    try (TestService restarted = TestService.start(direct())) {
      assertThat(restarted.postEvents(events).statusCode()).isEqualTo(202);
      JsonObject c = exactThrough(restarted, device, hour + HOUR);
      assertThat(c.getLong("total")).isEqualTo(60);
    }
  }

  @Test
  void aBackfillReopensAClosedHourAndItsCountsConvergeToExact() {
    String status = "bf-" + UUID.randomUUID().toString().substring(0, 8);
    String device = "cnt-" + status;
    long hour = closedHour() - HOUR;
    try (TestService s = TestService.start(direct())) {
      assertThat(s.postEvents(batch(device, hour, 30, status, 200, "a")).statusCode())
          .isEqualTo(202);
      assertThat(exactThrough(s, device, hour + HOUR).getLong("total")).isEqualTo(30);

      assertThat(s.postEvents(batch(device, hour + 1_800_000, 12, status, 200, "b")).statusCode())
          .isEqualTo(202);
      // the 202 came after the reopened-hour rows: the hour is no longer claimed exact
      JsonObject reopened = deviceCounters(s, device);
      assertThat(reopened.getLong("exactThrough")).isLessThanOrEqualTo(hour);
      // until then the count is approximate, but never below the acknowledged events once the
      // count journal has passed the acknowledgement
      long acked = System.currentTimeMillis();
      JsonObject counted =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> deviceCounters(s, device), c -> c.getLong("countedThrough", 0L) >= acked);
      assertThat(counted.getLong("total")).isBetween(42L, 42L + 12);
      assertThat(exactThrough(s, device, hour + HOUR).getLong("total")).isEqualTo(42);
    }
  }

  @Test
  void withoutReconciliationAClosedHourStaysApproximateAndIsNeverClaimedExact() {
    String status = "approx-" + UUID.randomUUID().toString().substring(0, 8);
    String device = "cnt-" + status;
    long hour = closedHour();
    Map<String, String> cfg = new HashMap<>(direct());
    cfg.put("counters.reconcile", "false");
    try (TestService s = TestService.start(cfg)) {
      String body = batch(device, hour, 30, status, 200, "a");
      assertThat(s.postEvents(body).statusCode()).isEqualTo(202);
      assertThat(s.postEvents(body).statusCode()).isEqualTo(202);
      long acked = System.currentTimeMillis();
      // counted, and the hour recomputed: with reconciliation it would now be exact at 30
      JsonObject c =
          await()
              .atMost(Duration.ofSeconds(90))
              .until(
                  () -> deviceCounters(s, device),
                  j ->
                      j.getLong("countedThrough", 0L) >= acked
                          && s.counter("amber.rollup.recomputes") >= 1);
      assertThat(c.getLong("exactThrough")).as(c.encode()).isNull();
      long attempted = (long) s.counter("amber.counter.journal.events");
      assertThat(c.getLong("total")).as(c.encode()).isBetween(60L, attempted);
      try (var cql = TestService.cql()) {
        assertThat(
                cql.execute(
                        "SELECT events FROM "
                            + KEYSPACE
                            + ".device_exact_counts WHERE device_id = ?",
                        device)
                    .all())
            .as("exact rows written without reconciliation")
            .isEmpty();
      }
    }
  }

  @Test
  void openHourCountsStayBetweenAcknowledgedAndAttemptedUntilReconciled() throws Exception {
    String status = "open-" + UUID.randomUUID().toString().substring(0, 8);
    int code = 600 + ThreadLocalRandom.current().nextInt(300);
    long ts = System.currentTimeMillis() - 1000;
    int devices = 10;
    int perPath = 200;
    try (TestService s = TestService.start(fast(Map.of()));
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      for (int i = 0; i < perPath; i += 20) {
        StringBuilder body = new StringBuilder("[");
        for (int j = i; j < i + 20; j++) {
          body.append(j == i ? "" : ",")
              .append(event("cnt-" + status + "-" + (j % devices), ts + j, "h" + j, status, code));
        }
        assertThat(s.postEvents(body.append("]").toString()).statusCode()).isEqualTo(202);
      }
      for (int i = 0; i < perPath; i++) {
        String d = "cnt-" + status + "-" + (i % devices);
        producer.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                s.topic(),
                d.getBytes(StandardCharsets.UTF_8),
                event(d, ts + i, "k" + i, status, code).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
      String group = s.config().kafka().groupId();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(group, s.topic()) == 2L * perPath);
      long acked = System.currentTimeMillis();
      JsonObject stats =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> statusStats(s, ts), j -> j.getLong("countedThrough", 0L) >= acked);
      // 400 distinct events, each acknowledged; attempted: every event a count record was sent for
      long attempted = (long) s.counter("amber.counter.journal.events");
      assertThat(attempted).isGreaterThanOrEqualTo(2L * perPath);
      assertThat(stats.getJsonObject("byStatus").getLong(status))
          .isBetween(2L * perPath, attempted);
      long sumOfDevices = 0;
      for (int d = 0; d < devices; d++) {
        sumOfDevices += deviceCounters(s, "cnt-" + status + "-" + d).getLong("total");
      }
      assertThat(sumOfDevices).isBetween(2L * perPath, attempted);
    }
  }

  @Test
  void eventsRedeliveredAfterAnInstanceIsKilledMidStreamCountOnceTheirHourIsExact()
      throws Exception {
    String status = "crash-" + UUID.randomUUID().toString().substring(0, 8);
    String topic = "it-crash-" + UUID.randomUUID().toString().substring(0, 8);
    String group = topic + "-group";
    int total = 20_000;
    int devices = 50;
    long hour = closedHour();
    Kafkas.createTopic(topic, 2);
    try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      for (int i = 0; i < total; i++) {
        String d = "crash-" + status + "-" + (i % devices);
        producer.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                topic,
                d.getBytes(StandardCharsets.UTF_8),
                event(d, hour + (i % 3_000_000), "c" + i, status, 200)
                    .getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    Map<String, String> cfg =
        fast(
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
                "100",
                // the killed member holds its partitions until its session expires; the default
                // 45 s would eat a third of the time the survivor has to finish the topic
                "kafka.consumer.session-timeout",
                "10s"));
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
          .atMost(Duration.ofSeconds(180))
          .untilAsserted(
              () ->
                  assertThat(Kafkas.committedTotal(group, topic))
                      .as("offsets committed by the survivor")
                      .isEqualTo(total));
      long sum = 0;
      for (int d = 0; d < devices; d++) {
        sum += exactThrough(second, "crash-" + status + "-" + d, hour + HOUR).getLong("total");
      }
      assertThat(sum).isEqualTo(total);
    }
  }

  @Test
  void abnormalQueryCountsEachDeviceOncePerCode() {
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
