package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.ingest.DeadLetterHeaders;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServers.class)
@Timeout(300)
class KafkaIngestIT {
  static KafkaProducer<byte[], byte[]> producer;

  @BeforeAll
  static void start() {
    producer = Kafkas.producer();
  }

  @AfterAll
  static void stop() {
    if (producer != null) {
      producer.close();
    }
  }

  static String device() {
    return "dev-" + UUID.randomUUID();
  }

  static byte[] event(String device, long ts, String eventId) {
    return ("{\"deviceId\":\""
            + device
            + "\",\"ts\":"
            + ts
            + ",\"eventId\":\""
            + eventId
            + "\",\"status\":\"normal\",\"metrics\":{\"temp\":21.5}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static JsonArray items(TestService s, String device) {
    return new JsonObject(s.get("/api/v1/devices/" + device + "/events?limit=1000").body())
        .getJsonArray("items");
  }

  @Test
  void recordsAreWrittenAndRedeliveriesAreIdempotent() {
    try (TestService s = TestService.start(Map.of())) {
      String d = device();
      long now = System.currentTimeMillis();
      for (int i = 0; i < 20; i++) {
        Kafkas.send(producer, s.topic(), d, event(d, now - i, "e" + i));
      }
      // a redelivered record (same eventId and ts) must not become a second row
      Kafkas.send(producer, s.topic(), d, event(d, now, "e0"));
      await().atMost(Duration.ofSeconds(30)).until(() -> items(s, d).size() >= 20);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Kafkas.committedTotal(s.config().kafka().groupId(), s.topic()) == 21);
      assertThat(items(s, d)).hasSize(20);
      assertThat(items(s, d).getJsonObject(0).getLong("ts")).isEqualTo(now);
    }
  }

  @Test
  void poisonRecordsAreDeadLetteredWithTheirBytesAndTheStreamGoesOn() {
    try (TestService s = TestService.start(Map.of())) {
      String d = device();
      byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28, '{', '}'};
      byte[] notJson = "{\"deviceId\":".getBytes(StandardCharsets.UTF_8);
      byte[] invalid =
          ("{\"deviceId\":\"" + d + "\",\"ts\":\"yesterday\"}").getBytes(StandardCharsets.UTF_8);
      Kafkas.send(producer, s.topic(), d, notUtf8);
      Kafkas.send(producer, s.topic(), d, notJson);
      Kafkas.send(producer, s.topic(), d, invalid);
      Kafkas.send(producer, s.topic(), d, event(d, System.currentTimeMillis(), "good"));

      await().atMost(Duration.ofSeconds(30)).until(() -> items(s, d).size() == 1);
      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(s.dlqTopic(), 3, Duration.ofSeconds(20));
      assertThat(dead).hasSize(3);
      assertThat(dead)
          .extracting(ConsumerRecord::value)
          .containsExactlyInAnyOrder(notUtf8, notJson, invalid);
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        assertThat(Kafkas.header(r, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(s.topic());
        assertThat(Kafkas.header(r, DeadLetterHeaders.SOURCE_PARTITION)).matches("\\d+");
        assertThat(Kafkas.header(r, DeadLetterHeaders.SOURCE_OFFSET)).matches("\\d+");
        assertThat(Kafkas.header(r, DeadLetterHeaders.ERROR_MESSAGE)).isNotBlank();
      }
      ConsumerRecord<byte[], byte[]> invalidLetter =
          dead.stream()
              .filter(r -> java.util.Arrays.equals(r.value(), invalid))
              .findFirst()
              .orElseThrow();
      assertThat(Kafkas.header(invalidLetter, DeadLetterHeaders.ERROR_CLASS))
          .isEqualTo("InvalidEvent");
      assertThat(Kafkas.header(invalidLetter, DeadLetterHeaders.ERROR_MESSAGE)).contains("ts");
      // the poison records are finished too: their offsets are committed
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Kafkas.committedTotal(s.config().kafka().groupId(), s.topic()) == 4);
    }
  }

  @Test
  void deadLetterGuardStopsConsumptionAndReadiness() {
    try (TestService s =
        TestService.start(
            Map.of(
                "kafka.topic-partitions",
                "1",
                "kafka.dlq-guard.window",
                "20",
                "kafka.dlq-guard.min-samples",
                "10",
                "kafka.dlq-guard.max-ratio",
                "0.5"))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.get("/health/ready").statusCode() == 200);
      String d = device();
      for (int i = 0; i < 40; i++) {
        Kafkas.send(producer, s.topic(), d, ("garbage " + i).getBytes(StandardCharsets.UTF_8));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.get("/health/ready").statusCode() == 503);
      assertThat(
              new JsonObject(s.get("/health/ready").body())
                  .getJsonObject("checks")
                  .getString("deadLetterGuard"))
          .isEqualTo("TRIPPED");
      // the guard stops the flood: far fewer than 40 letters, and nothing after the trip
      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(s.dlqTopic(), 40, Duration.ofSeconds(3));
      assertThat(dead.size()).isBetween(5, 20);
      long committed = Kafkas.committedTotal(s.config().kafka().groupId(), s.topic());
      assertThat(committed).isLessThanOrEqualTo(dead.size());
      // a good record after the trip is not consumed either: consumption has stopped
      Kafkas.send(producer, s.topic(), d, event(d, System.currentTimeMillis(), "after-trip"));
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> items(s, d).isEmpty());
    }
  }

  @Test
  void recordProducedBeforeStartIsPickedUp() {
    // consumer group starts at the earliest offset, so nothing produced before the first start is
    // lost
    String topic = "it-pre-" + UUID.randomUUID().toString().substring(0, 8);
    String d = device();
    Kafkas.createTopic(topic, 2);
    Kafkas.send(producer, topic, d, event(d, System.currentTimeMillis(), "early"));
    try (TestService s =
        TestService.start(
            Map.of(
                "kafka.topic",
                topic,
                "kafka.dlq-topic",
                topic + ".dlq",
                "kafka.group-id",
                topic + "-group"))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> items(s, d).size() == 1);
    }
  }
}
