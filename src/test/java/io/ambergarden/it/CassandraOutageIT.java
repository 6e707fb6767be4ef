package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.Scope;
import io.ambergarden.auth.TestJwts;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Cassandra stops mid-ingest while Kafka and the service stay up; nothing acknowledged may be lost
 * or doubled, and kafka-mode HTTP ingest goes on.
 */
@ExtendWith(RealServers.class)
@Timeout(400)
class CassandraOutageIT {
  private static final int BEFORE = 100;
  private static final int DURING = 150;

  /**
   * F1 and F13 in one outage. The kafka-mode instance keeps answering 202 to HTTP ingest and stays
   * ready, its reads answer 503 with Retry-After at once, and its consumer stops committing; the
   * direct-mode instance answers 503 (never a 2xx for unpersisted data). After Cassandra returns,
   * every accepted event has exactly one row and the lag is back to 0.
   */
  @Test
  void outageKeepsKafkaIngestReadyAndLosesNothing() throws Exception {
    CassandraNode cassandra = RealServers.runtime().cassandra();
    String kafkaDevice = "outage-k-" + UUID.randomUUID();
    String httpDevice = "outage-h-" + UUID.randomUUID();
    String bufferedDevice = "outage-b-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    Map<String, String> fast =
        Map.of("cassandra.request-timeout", "2s", "writer.request-timeout", "5s");
    Map<String, String> directCfg = new HashMap<>(fast);
    directCfg.putAll(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"));
    Set<String> acked = ConcurrentHashMap.newKeySet();
    Set<String> buffered = ConcurrentHashMap.newKeySet();
    Map<Integer, Integer> answers = new ConcurrentHashMap<>();
    Map<Integer, Integer> bufferedAnswers = new ConcurrentHashMap<>();
    AtomicInteger notReady = new AtomicInteger();
    AtomicBoolean outage = new AtomicBoolean();
    AtomicInteger bufferedDuringOutage = new AtomicInteger();
    ScheduledExecutorService poster = Executors.newScheduledThreadPool(3);

    try (TestService consumer = TestService.start(fast);
        TestService direct = TestService.start(directCfg);
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      String group = consumer.config().kafka().groupId();
      for (int i = 0; i < BEFORE; i++) {
        Kafkas.send(producer, consumer.topic(), kafkaDevice, event(kafkaDevice, base + i, "k" + i));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Kafkas.committedTotal(group, consumer.topic()) == BEFORE);

      // an HTTP client keeps posting to each instance, 20 requests/s each, through the whole
      // outage and remembers what got a 202; a probe watches the kafka-mode instance's readiness
      AtomicInteger seq = new AtomicInteger();
      poster.scheduleAtFixedRate(
          () -> post(direct, httpDevice, base, "h" + seq.getAndIncrement(), answers, acked),
          0,
          50,
          TimeUnit.MILLISECONDS);
      AtomicInteger bufferedSeq = new AtomicInteger();
      poster.scheduleAtFixedRate(
          () -> {
            String id = "b" + bufferedSeq.getAndIncrement();
            if (post(consumer, bufferedDevice, base, id, bufferedAnswers, buffered)
                && outage.get()) {
              bufferedDuringOutage.incrementAndGet();
            }
          },
          0,
          50,
          TimeUnit.MILLISECONDS);
      poster.scheduleAtFixedRate(
          () -> {
            try {
              if (consumer.get("/health/ready").statusCode() != 200) {
                notReady.incrementAndGet();
              }
            } catch (RuntimeException e) {
              notReady.incrementAndGet();
            }
          },
          0,
          200,
          TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> acked.size() >= 5 && buffered.size() >= 5);

      outage.set(true);
      cassandra.stop();
      long readMs;
      try {
        for (int i = BEFORE; i < BEFORE + DURING; i++) {
          Kafkas.send(
              producer, consumer.topic(), kafkaDevice, event(kafkaDevice, base + i, "k" + i));
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> direct.get("/health/ready").statusCode() == 503);
        await().atMost(Duration.ofSeconds(30)).until(() -> answers.getOrDefault(503, 0) > 0);
        // once the probe knows, reads fail fast with a hint instead of waiting for the driver
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    consumer.get("/api/v1/devices/" + kafkaDevice + "/latest").statusCode() == 503);
        long t0 = System.nanoTime();
        HttpResponse<String> read = consumer.get("/api/v1/devices/" + kafkaDevice + "/events");
        readMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(read.statusCode()).isEqualTo(503);
        assertThat(read.headers().firstValue("Retry-After")).isPresent();
        assertThat(read.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(readMs).as("a read while the store is known down").isLessThan(1000);
        // nothing can be written, so nothing more may be committed, while HTTP ingest goes on
        int bufferedBefore = bufferedDuringOutage.get();
        long stalledAt = Kafkas.committedTotal(group, consumer.topic());
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> Kafkas.committedTotal(group, consumer.topic()) == stalledAt);
        assertThat(stalledAt).isLessThan(BEFORE + DURING);
        assertThat(bufferedDuringOutage.get()).isGreaterThan(bufferedBefore);
        JsonObject health = new JsonObject(consumer.get("/health/ready").body());
        assertThat(health.getString("status")).isEqualTo("UP");
        assertThat(health.getJsonObject("checks").getString("cassandra")).isEqualTo("DOWN");
        assertThat(health.getJsonArray("gates").getList()).doesNotContain("cassandra", "writes");
      } finally {
        cassandra.start();
      }
      long restartedAt = System.nanoTime();
      outage.set(false);

      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> direct.get("/health/ready").statusCode() == 200);
      int ackedBeforeStop = acked.size();
      await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() > ackedBeforeStop + 5);
      poster.shutdown();
      assertThat(poster.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      long total = BEFORE + DURING + buffered.size();
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> Kafkas.committedTotal(group, consumer.topic()) == total);
      long recoveredMs = (System.nanoTime() - restartedAt) / 1_000_000;
      // the lag as operators see it: committed = end offsets, and the gauge back at 0
      Map<Integer, Long> committed = Kafkas.committed(group, consumer.topic());
      Kafkas.endOffsets(consumer.topic())
          .forEach(
              (p, end) ->
                  assertThat(committed.getOrDefault(p, 0L)).as("partition %d", p).isEqualTo(end));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  PrometheusText.sum(consumer.get("/metrics").body(), "amber_kafka_consumer_lag")
                      == 0);
      ItLog.printf(
          "cassandra outage: kafka-mode HTTP 202s %d (%d while Cassandra was down), answers %s,"
              + " readiness probes not 200: %d; direct-mode answers %s; read while down %d ms;"
              + " all %d records committed %d ms after the restart%n",
          buffered.size(),
          bufferedDuringOutage.get(),
          bufferedAnswers,
          notReady.get(),
          answers,
          readMs,
          total,
          recoveredMs);
    } finally {
      poster.shutdownNow();
    }
    // kafka mode: every post a 202, and the pod never left the Service
    assertThat(bufferedAnswers.keySet()).containsOnly(202);
    assertThat(notReady.get()).isZero();
    // direct mode: only 202, or 503/429 with Retry-After (negative keys are anything else)
    assertThat(answers.keySet()).allMatch(code -> code == 202 || code == 503 || code == 429);

    try (CqlSession cql = TestService.cql()) {
      Map<String, Integer> kafkaRows = rowsByEventId(cql, kafkaDevice, base);
      assertThat(kafkaRows).hasSize(BEFORE + DURING);
      assertThat(kafkaRows.values()).allMatch(n -> n == 1);
      Map<String, Integer> bufferedRows = rowsByEventId(cql, bufferedDevice, base);
      assertThat(bufferedRows.keySet()).isEqualTo(buffered);
      assertThat(bufferedRows.values()).allMatch(n -> n == 1);
      Map<String, Integer> httpRows = rowsByEventId(cql, httpDevice, base);
      assertThat(httpRows.keySet()).containsAll(acked);
      assertThat(httpRows.values()).allMatch(n -> n == 1);
    }
  }

  /**
   * F13 for credentials, with an outage longer than auth.key-cache.max-stale and a pod that starts
   * during it (a forked service process, as a pod). The running instance keeps taking a key it
   * verified before for the whole outage, refuses a key it never saw with 503 and Retry-After, and
   * its readiness never drops. The instance started during the outage
   * (ingest.start-without-cassandra) becomes ready and takes a JWT and a key from its static keys
   * file at once, while stored keys get 503 with Retry-After. Once Cassandra is back, the stored
   * keys work on both, a revocation reaches both within 5 s, and every accepted event lands once.
   */
  @Test
  void knownKeysOutlastMaxStaleAndAPodStartsDuringTheOutage() throws Exception {
    CassandraNode cassandra = RealServers.runtime().cassandra();
    String run = UUID.randomUUID().toString().substring(0, 8);
    String device = "restart-" + run;
    long base = System.currentTimeMillis() - 60_000;
    ApiKeys.Minted fixed = ApiKeys.mint();
    Path dir = Files.createTempDirectory("amber-outage-");
    Path staticKeys = dir.resolve("keys.json");
    Files.writeString(
        staticKeys,
        new JsonArray()
            .add(
                new JsonObject()
                    .put("key", fixed.text())
                    .put("name", "gateway")
                    .put("scopes", new JsonArray().add("events:write")))
            .encode());
    KeyPair jwtKey = TestJwts.rsa();
    String jwt =
        TestJwts.rs256(
            jwtKey.getPrivate(),
            TestJwts.claims("outage-gateway", "events:write")
                .put("devices", new JsonArray().add("restart-*")),
            null);
    String topic = "it-outage-" + run;
    Map<String, String> cfg = new HashMap<>();
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", topic + "-group");
    cfg.put("kafka.topic-partitions", "2");
    cfg.put("cassandra.request-timeout", "2s");
    cfg.put("auth.key-cache.refresh", "1s");
    cfg.put("auth.key-cache.max-stale", "2s");
    cfg.put("auth.static-keys-file", staticKeys.toString());
    cfg.put("auth.jwt.public-key-file", TestJwts.writePublicPem(jwtKey, dir).toString());
    cfg.put("auth.jwt.issuer", TestJwts.ISSUER);
    cfg.put("auth.jwt.audience", TestJwts.AUDIENCE);
    cfg.put("ingest.start-without-cassandra", "true");
    Set<String> accepted = ConcurrentHashMap.newKeySet();
    AtomicInteger seq = new AtomicInteger();
    AtomicInteger notReady = new AtomicInteger();
    ScheduledExecutorService probe = Executors.newSingleThreadScheduledExecutor();
    ServiceProcess[] startedDuringOutage = new ServiceProcess[1];

    try (ServiceProcess running = ServiceProcess.start("outage-running", cfg)) {
      // stored once the service made the schema (behind HTTP in this mode), before the outage
      String known =
          await()
              .atMost(Duration.ofSeconds(60))
              .ignoreExceptions()
              .until(
                  () ->
                      TestKeys.create(
                          "outage-known", Set.of(Scope.EVENTS_WRITE), List.of(), 100_000),
                  java.util.Objects::nonNull);
      String unseen =
          TestKeys.create("outage-unseen", Set.of(Scope.EVENTS_WRITE), List.of(), 100_000);
      TestKeys.admin(); // revokes afterwards
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> postAs(running, known, device, base, seq, accepted).statusCode() == 202);
      probe.scheduleAtFixedRate(
          () -> {
            if (!running.isReady()) {
              notReady.incrementAndGet();
            }
          },
          0,
          200,
          TimeUnit.MILLISECONDS);
      long outageMs;
      int knownDuringOutage = 0;
      try {
        cassandra.stop();
        long down = System.nanoTime();
        // past max-stale (2 s) several times over: the known key keeps getting 202
        while (System.nanoTime() - down < TimeUnit.SECONDS.toNanos(8)) {
          assertThat(postAs(running, known, device, base, seq, accepted).statusCode())
              .as("a known key during the outage")
              .isEqualTo(202);
          knownDuringOutage++;
        }
        assertUnavailableWithHint(postAs(running, unseen, device, base, seq, accepted));

        startedDuringOutage[0] = ServiceProcess.start("outage-started", cfg);
        ServiceProcess started = startedDuringOutage[0];
        assertThat(postAs(started, fixed.text(), device, base, seq, accepted).statusCode())
            .as("a static key on a pod started during the outage")
            .isEqualTo(202);
        assertThat(postAs(started, jwt, device, base, seq, accepted).statusCode())
            .as("a JWT on a pod started during the outage")
            .isEqualTo(202);
        assertUnavailableWithHint(postAs(started, known, device, base, seq, accepted));
        assertThat(postAs(running, known, device, base, seq, accepted).statusCode()).isEqualTo(202);
        outageMs = (System.nanoTime() - down) / 1_000_000;
      } finally {
        cassandra.start();
      }
      probe.shutdown();
      ServiceProcess restarted = startedDuringOutage[0];
      // the stored keys work again on both once the started pod reaches Cassandra
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> postAs(restarted, known, device, base, seq, accepted).statusCode() == 202);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> postAs(running, unseen, device, base, seq, accepted).statusCode() == 202);

      // revocation still reaches every instance within 5 s while Cassandra is up
      String id = ApiKeys.parse(known).orElseThrow().id();
      HttpResponse<String> revoked =
          TestService.send(
              HttpRequest.newBuilder(running.uri("/api/v1/admin/keys/" + id)).DELETE().build());
      assertThat(revoked.statusCode()).isBetween(200, 299);
      long t0 = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  postAs(restarted, known, device, base, seq, null).statusCode() == 401
                      && postAs(running, known, device, base, seq, null).statusCode() == 401);
      long revokedMs = (System.nanoTime() - t0) / 1_000_000;

      // every accepted event lands once, from both consumers of the group
      try (CqlSession cql = TestService.cql()) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> rowsByEventId(cql, device, base).keySet().containsAll(accepted));
        assertThat(rowsByEventId(cql, device, base).values()).allMatch(n -> n == 1);
      }
      ItLog.printf(
          "outage past max-stale: %d ms down; known key 202 x %d during it; pod started during"
              + " the outage served a static key and a JWT; readiness probes not 200 on the"
              + " running pod: %d; revocation seen on both %d ms after the DELETE; %d events"
              + " landed once%n",
          outageMs, knownDuringOutage, notReady.get(), revokedMs, accepted.size());
    } finally {
      probe.shutdownNow();
      if (startedDuringOutage[0] != null) {
        startedDuringOutage[0].close();
      }
    }
    assertThat(notReady.get()).as("readiness probes of the running pod not 200").isZero();
  }

  private static HttpResponse<String> postAs(
      ServiceProcess s,
      String credential,
      String device,
      long base,
      AtomicInteger seq,
      Set<String> accepted) {
    int n = seq.getAndIncrement();
    String id = "r" + n;
    HttpResponse<String> r =
        TestService.sendAs(
            HttpRequest.newBuilder(s.uri("/api/v1/events"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + credential)
                .timeout(Duration.ofSeconds(10))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        new String(event(device, base + n, id), StandardCharsets.UTF_8)))
                .build());
    if (r.statusCode() == 202 && accepted != null) {
      accepted.add(id);
    }
    return r;
  }

  private static void assertUnavailableWithHint(HttpResponse<String> r) {
    assertThat(r.statusCode()).as("a key that cannot be verified now: %s", r.body()).isEqualTo(503);
    assertThat(r.headers().firstValue("Retry-After")).isPresent();
  }

  /**
   * Posts one event; records the answer (negative: not an allowed one) and, on 202, the id. True on
   * 202.
   */
  private static boolean post(
      TestService s,
      String device,
      long base,
      String id,
      Map<Integer, Integer> answers,
      Set<String> acked) {
    int n = Integer.parseInt(id.substring(1));
    HttpResponse<String> r;
    try {
      r = s.postEvents(new String(event(device, base + n, id), StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      answers.merge(-1, 1, Integer::sum);
      return false;
    }
    boolean shedWithHint =
        (r.statusCode() == 503 || r.statusCode() == 429)
            && r.headers().firstValue("Retry-After").isPresent();
    answers.merge(
        r.statusCode() == 202 || shedWithHint ? r.statusCode() : -r.statusCode(), 1, Integer::sum);
    if (r.statusCode() == 202) {
      acked.add(id);
      return true;
    }
    return false;
  }

  static byte[] event(String device, long ts, String eventId) {
    return ("{\"deviceId\":\""
            + device
            + "\",\"ts\":"
            + ts
            + ",\"eventId\":\""
            + eventId
            + "\",\"code\":200}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * How many rows each event id of {@code device} has, from an hour before {@code base} to now:
   * every partition of each bucket, its own and its slices' salts, as readers merge them (a device
   * that ran hot in one hour has its next hour in slices from the start).
   */
  static Map<String, Integer> rowsByEventId(CqlSession cql, String device, long base) {
    Map<String, Integer> rows = new HashMap<>();
    long hour = 3_600_000L;
    for (long b = (base / hour - 1) * hour;
        b <= (System.currentTimeMillis() / hour) * hour;
        b += hour) {
      List<DetailSlices.Slice> slices =
          StoredSlices.of(cql.execute(StoredSlices.query(TestService.KEYSPACE, device, b)));
      for (long key : DetailSlices.partitionsOf(b, slices)) {
        cql.execute(
                "SELECT event_id FROM "
                    + TestService.KEYSPACE
                    + ".events_by_device WHERE device_id = ? AND bucket = ?",
                device,
                java.time.Instant.ofEpochMilli(key))
            .forEach(r -> rows.merge(r.getString(0), 1, Integer::sum));
      }
    }
    return rows;
  }
}
