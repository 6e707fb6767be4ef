package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.RealServers;
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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F16: a second instance joins the consumer group in the middle of a stream, then leaves. Nothing
 * may be lost, and the records written twice are bounded by what was in flight when partitions
 * moved, not by the commit interval: the owner commits its finished offsets synchronously on revoke
 * and stops writing what it gave away.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class RebalanceIT {
  private static final int PARTITIONS = 4;
  private static final int MAX_IN_FLIGHT = 100;
  private static final int MAX_POLL_RECORDS = 50;

  /**
   * Per rebalance, at most the records in flight on the revoked partitions are written by both
   * owners: the cap plus one poll's worth, which may land on top of it. Join and leave: two.
   */
  private static final int DUPLICATE_BOUND = 2 * (MAX_IN_FLIGHT + MAX_POLL_RECORDS);

  @Test
  void anInstanceJoiningAndLeavingMidStreamLosesNothingAndDuplicatesLittle() throws Exception {
    String topic = "it-rebalance-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> cfg = new HashMap<>();
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", topic + "-group");
    cfg.put("kafka.topic-partitions", Integer.toString(PARTITIONS));
    cfg.put("kafka.consumer.max-in-flight", Integer.toString(MAX_IN_FLIGHT));
    cfg.put("kafka.consumer.max-poll-records", Integer.toString(MAX_POLL_RECORDS));
    cfg.put("kafka.consumer.write-batch", "50");
    // a long periodic commit: without a commit on revoke, the new owner would redo up to 10 s
    cfg.put("kafka.consumer.commit-interval", "10s");
    String group = topic + "-group";
    String d = "rebalance-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicInteger sent = new AtomicInteger();
    ScheduledExecutorService client = Executors.newSingleThreadScheduledExecutor();
    double writtenByA;
    double writtenByB;
    try (CqlSession cql = TestService.cql();
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer();
        TestService a = TestService.start(cfg)) {
      var aWrites = a.app().registry().find("amber.ingest.events").tag("path", "kafka").counter();
      // 200 events/s over 8 devices, two per partition
      client.scheduleAtFixedRate(
          () -> {
            int i = sent.getAndIncrement();
            String device = d + "-" + (i % 8);
            String id = "e" + i;
            producer.send(
                new ProducerRecord<>(
                    topic,
                    i % PARTITIONS,
                    device.getBytes(StandardCharsets.UTF_8),
                    event(device, base + i, id)),
                (md, err) -> {
                  if (err == null) {
                    acked.add(id);
                  }
                });
          },
          0,
          5,
          TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> a.kafkaEventsWritten() >= 500);

      long joinAt = System.nanoTime();
      TestService b = TestService.start(cfg);
      var bWrites = b.app().registry().find("amber.ingest.events").tag("path", "kafka").counter();
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> bWrites.count() >= 500);
        ItLog.printf(
            "F16 second instance joined and wrote 500 in %d ms%n",
            (System.nanoTime() - joinAt) / 1_000_000);
      } finally {
        b.close();
      }
      writtenByB = bWrites.count();
      long leftAt = System.nanoTime();
      int sentAfterLeave = sent.get();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> maxStoredIndex(cql, d, base) >= sentAfterLeave);
      long resumedMs = (System.nanoTime() - leftAt) / 1_000_000;
      client.shutdown();
      assertThat(client.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      producer.flush();

      Map<Integer, Long> ends = Kafkas.endOffsets(topic, PARTITIONS);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> aWrites.count() + writtenByB >= sent.get());
      double revokedOnA = a.counter("amber.kafka.consumer.partitions", "change", "revoked");
      double assignedToA = a.counter("amber.kafka.consumer.partitions", "change", "assigned");
      double lostOnA = a.counter("amber.kafka.consumer.partitions", "change", "lost");
      // a clean stop drains and commits: everything is committed at once
      a.close();
      writtenByA = aWrites.count();
      assertThat(Kafkas.caughtUp(group, topic, ends)).isTrue();

      Map<String, Integer> rows = stored(cql, d, base);
      assertThat(rows.keySet()).containsAll(acked);
      assertThat(rows.values()).allMatch(n -> n == 1);
      int produced = acked.size();
      double duplicates = writtenByA + writtenByB - rows.size();
      ItLog.printf(
          "F16 rebalance (join, then leave): accepted %d, stored %d, written by A %.0f and by B"
              + " %.0f, duplicates %.0f (bound %d), A took everything back and caught up %d ms"
              + " after B left; revoked on A %.0f, assigned to A %.0f partitions%n",
          produced,
          rows.size(),
          writtenByA,
          writtenByB,
          duplicates,
          DUPLICATE_BOUND,
          resumedMs,
          revokedOnA,
          assignedToA);
      assertThat(rows).hasSize(produced);
      assertThat(duplicates).isBetween(0.0, (double) DUPLICATE_BOUND);
      // cooperative rebalancing: A gave up only what B took, never everything
      assertThat(revokedOnA).isLessThan(PARTITIONS);
      assertThat(lostOnA).isZero();
    } finally {
      client.shutdownNow();
    }
  }

  private static Map<String, Integer> stored(CqlSession cql, String device, long base) {
    Map<String, Integer> all = new HashMap<>();
    for (int k = 0; k < 8; k++) {
      CassandraOutageIT.rowsByEventId(cql, device + "-" + k, base)
          .forEach((id, n) -> all.merge(id, n, Integer::sum));
    }
    return all;
  }

  private static int maxStoredIndex(CqlSession cql, String device, long base) {
    return stored(cql, device, base).keySet().stream()
        .mapToInt(id -> Integer.parseInt(id.substring(1)))
        .max()
        .orElse(-1);
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
}
