package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.RealServers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Cassandra stops mid-ingest while Kafka and the service stay up; nothing acknowledged may be lost
 * or doubled.
 */
@ExtendWith(RealServers.class)
@Timeout(400)
class CassandraOutageIT {
  private static final int BEFORE = 100;
  private static final int DURING = 150;

  @Test
  void testOutageStallsOffsetsFailsFastAndLosesNothing() throws Exception {
    CassandraNode cassandra = RealServers.runtime().cassandra();
    String kafkaDevice = "outage-k-" + UUID.randomUUID();
    String httpDevice = "outage-h-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    Map<String, String> fast =
        Map.of("cassandra.request-timeout", "2s", "writer.request-timeout", "5s");
    Map<String, String> directCfg = new HashMap<>(fast);
    directCfg.putAll(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"));
    Set<String> acked = ConcurrentHashMap.newKeySet();
    Map<Integer, Integer> answers = new ConcurrentHashMap<>();
    ScheduledExecutorService poster = Executors.newSingleThreadScheduledExecutor();

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

      // an HTTP client keeps posting, 20 requests/s, through the whole outage and remembers what
      // got a 202
      AtomicInteger seq = new AtomicInteger();
      poster.scheduleAtFixedRate(
          () -> {
            int n = seq.getAndIncrement();
            String id = "h" + n;
            HttpResponse<String> r;
            try {
              r =
                  direct.postEvents(
                      new String(event(httpDevice, base + n, id), StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
              answers.merge(-1, 1, Integer::sum);
              return;
            }
            boolean shedWithHint =
                (r.statusCode() == 503 || r.statusCode() == 429)
                    && r.headers().firstValue("Retry-After").isPresent();
            answers.merge(
                r.statusCode() == 202 || shedWithHint ? r.statusCode() : -r.statusCode(),
                1,
                Integer::sum);
            if (r.statusCode() == 202) {
              acked.add(id);
            }
          },
          0,
          50,
          TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> acked.size() >= 5);

      cassandra.stop();
      try {
        for (int i = BEFORE; i < BEFORE + DURING; i++) {
          Kafkas.send(
              producer, consumer.topic(), kafkaDevice, event(kafkaDevice, base + i, "k" + i));
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    consumer.get("/health/ready").statusCode() == 503
                        && direct.get("/health/ready").statusCode() == 503);
        await().atMost(Duration.ofSeconds(30)).until(() -> answers.getOrDefault(503, 0) > 0);
        // nothing can be written, so nothing more may be committed
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> Kafkas.committedTotal(group, consumer.topic()) == BEFORE);
      } finally {
        cassandra.start();
      }

      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  consumer.get("/health/ready").statusCode() == 200
                      && direct.get("/health/ready").statusCode() == 200);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(group, consumer.topic()) == BEFORE + DURING);
      int ackedBeforeStop = acked.size();
      await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() > ackedBeforeStop + 5);
      poster.shutdown();
      assertThat(poster.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      poster.shutdownNow();
    }
    // only 202, or 503/429 with Retry-After (negative keys are anything else)
    assertThat(answers.keySet()).allMatch(code -> code == 202 || code == 503 || code == 429);

    try (CqlSession cql = TestService.cql()) {
      Map<String, Integer> kafkaRows = rowsByEventId(cql, kafkaDevice, base);
      assertThat(kafkaRows).hasSize(BEFORE + DURING);
      assertThat(kafkaRows.values()).allMatch(n -> n == 1);
      Map<String, Integer> httpRows = rowsByEventId(cql, httpDevice, base);
      assertThat(httpRows.keySet()).containsAll(acked);
      assertThat(httpRows.values()).allMatch(n -> n == 1);
    }
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

  static Map<String, Integer> rowsByEventId(CqlSession cql, String device, long base) {
    Map<String, Integer> rows = new HashMap<>();
    long hour = 3_600_000L;
    for (long b = (base / hour - 1) * hour;
        b <= (System.currentTimeMillis() / hour) * hour;
        b += hour) {
      cql.execute(
              "SELECT event_id FROM "
                  + TestService.KEYSPACE
                  + ".events_by_device WHERE device_id = ? AND bucket = ?",
              device,
              java.time.Instant.ofEpochMilli(b))
          .forEach(r -> rows.merge(r.getString(0), 1, Integer::sum));
    }
    return rows;
  }
}
