package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.ingest.DeadLetterHeaders;
import io.ambergarden.localrt.RealServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F12: a record that can never be written becomes exactly one {@code StoreRejected} dead letter
 * while its neighbours land. A dead letter too large to send is F19 ({@link OversizedPoisonIT}).
 */
@ExtendWith(RealServers.class)
@Timeout(240)
class UnwritableRecordsIT {
  private static final int BEFORE = 5;
  private static final int AFTER = 5;
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

  static byte[] event(String device, long ts, String eventId, String payload) {
    return ("{\"deviceId\":\""
            + device
            + "\",\"ts\":"
            + ts
            + ",\"eventId\":\""
            + eventId
            + "\",\"status\":\"normal\""
            + (payload == null ? "" : ",\"payload\":{\"blob\":\"" + payload + "\"}")
            + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static String newTopic(int partitions, Map<String, String> dlqConfigs) {
    String topic = "it-unwritable-" + UUID.randomUUID().toString().substring(0, 8);
    Kafkas.createTopic(topic, partitions);
    Kafkas.createTopic(topic + ".dlq", 1, dlqConfigs);
    return topic;
  }

  static Map<String, String> topicConfig(String topic, String... more) {
    Map<String, String> m = new java.util.HashMap<>();
    m.put("kafka.topic", topic);
    m.put("kafka.dlq-topic", topic + ".dlq");
    m.put("kafka.group-id", topic + "-group");
    m.put("kafka.topic-partitions", "1");
    for (int i = 0; i < more.length; i += 2) {
      m.put(more[i], more[i + 1]);
    }
    return m;
  }

  @Test
  void aRecordTheStoreRejectsBecomesOneStoreRejectedDeadLetterAndItsNeighboursLand() {
    // the parser allows a 1 MiB payload; the local Cassandra takes mutations and CQL messages up to
    // 768 KiB (max_mutation_size), as a production cluster has its own limits: this event is valid
    // and can never be stored
    String topic = newTopic(1, Map.of());
    String d = "rejected-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    for (int i = 0; i < BEFORE; i++) {
      Kafkas.send(producer, topic, d, event(d, base + i, "g" + i, null));
    }
    byte[] huge = event(d, base + BEFORE, "huge", "x".repeat(800 * 1024));
    RecordHeaders headers = new RecordHeaders();
    headers.add(
        "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes());
    send(new ProducerRecord<>(topic, null, d.getBytes(), huge, headers));
    for (int i = BEFORE; i < BEFORE + AFTER; i++) {
      Kafkas.send(producer, topic, d, event(d, base + i + 1, "g" + i, null));
    }
    // produced before the start: the first poll reads all eleven, so they share one write batch,
    // which the store rejects as a whole
    long t0 = System.nanoTime();
    try (TestService s =
        TestService.start(topicConfig(topic, "event.max-payload-bytes", "1048576"))) {
      String group = s.config().kafka().groupId();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(group, topic) == BEFORE + 1 + AFTER);
      long settledMs = (System.nanoTime() - t0) / 1_000_000;

      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(topic + ".dlq", 1, Duration.ofSeconds(20));
      assertThat(dead).hasSize(1);
      ConsumerRecord<byte[], byte[]> letter = dead.get(0);
      assertThat(letter.value()).isEqualTo(huge);
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ERROR_CLASS))
          .isEqualTo(DeadLetterHeaders.STORE_REJECTED);
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ERROR_MESSAGE))
          .contains("exceeds allowed maximum of 786432 bytes");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.SOURCE_OFFSET))
          .isEqualTo(Integer.toString(BEFORE));
      assertThat(Kafkas.header(letter, "traceparent")).startsWith("00-4bf92f");

      try (CqlSession cql = TestService.cql()) {
        Map<String, Integer> rows = CassandraOutageIT.rowsByEventId(cql, d, base);
        assertThat(rows).hasSize(BEFORE + AFTER).doesNotContainKey("huge");
        assertThat(rows.values()).allMatch(n -> n == 1);
      }
      assertThat(s.get("/health/ready").statusCode()).isEqualTo(200);
      assertThat(s.counter("amber.kafka.consumer.store.rejected")).isEqualTo(1.0);
      ItLog.printf(
          "F12 store rejection: accepted %d, stored %d, dead letters %d (StoreRejected), committed"
              + " %d, settled in %d ms%n",
          BEFORE + 1 + AFTER,
          BEFORE + AFTER,
          dead.size(),
          Kafkas.committedTotal(group, topic),
          settledMs);
    }
  }

  private static void send(ProducerRecord<byte[], byte[]> r) {
    try {
      producer.send(r).get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
