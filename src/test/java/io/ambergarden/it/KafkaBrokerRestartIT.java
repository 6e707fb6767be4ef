package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.RealServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
 * F3: the broker restarts in the middle of a stream. The consumer's thread must never be held
 * longer than max.poll.interval.ms (set to 5 s here, far shorter than the outage), so the consumer
 * keeps its membership and partitions; nothing below the committed offset is missing, processing
 * resumes within seconds, and the lag returns to 0.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class KafkaBrokerRestartIT {
  private static final long MAX_POLL_INTERVAL_MS = 5_000;

  @Test
  void aBrokerRestartMidStreamLosesNothingAndTheConsumerKeepsItsPartitions() throws Exception {
    KafkaBroker broker = RealServers.runtime().kafka();
    String d = "restart-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    Set<String> acked = ConcurrentHashMap.newKeySet();
    ScheduledExecutorService client = Executors.newSingleThreadScheduledExecutor();
    try (CqlSession cql = TestService.cql();
        TestService s =
            TestService.start(
                Map.of(
                    "kafka.topic-partitions",
                    "2",
                    "kafka.consumer.max-poll-interval",
                    MAX_POLL_INTERVAL_MS + "ms"));
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      String group = s.config().kafka().groupId();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.get("/health/ready").statusCode() == 200);
      List<String> membersBefore = Kafkas.members(group);

      // a client keeps producing, 100 events/s, through the outage; what the broker acknowledged
      // is what was accepted (the producer buffers and retries while the broker is away)
      AtomicInteger sent = new AtomicInteger();
      client.scheduleAtFixedRate(
          () -> {
            int i = sent.getAndIncrement();
            String id = "e" + i;
            producer.send(
                new ProducerRecord<>(
                    s.topic(),
                    i % 2,
                    d.getBytes(StandardCharsets.UTF_8),
                    CassandraOutageIT.event(d, base + i, id)),
                (md, err) -> {
                  if (err == null) {
                    acked.add(id);
                  }
                });
          },
          0,
          10,
          TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= 300);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Kafkas.committedTotal(group, s.topic()) >= 200);

      long downAt = System.nanoTime();
      try {
        broker.stop();
        assertThat(s.get("/health/live").statusCode()).isEqualTo(200);
        // the outage lasts longer than max.poll.interval.ms however fast the broker stops
        await()
            .pollInterval(Duration.ofMillis(200))
            .atMost(Duration.ofSeconds(30))
            .until(() -> (System.nanoTime() - downAt) / 1_000_000 > MAX_POLL_INTERVAL_MS + 1_000);
      } finally {
        broker.start();
      }
      long upAt = System.nanoTime();
      long outageMs = (upAt - downAt) / 1_000_000;
      // a stop and a start take longer than max.poll.interval.ms: the premise of this test
      assertThat(outageMs).isGreaterThan(MAX_POLL_INTERVAL_MS);
      // processing resumes: an event sent after the broker is back is stored
      int sentAfterRestart = sent.get();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  storedIds(cql, d, base).keySet().stream()
                      .anyMatch(id -> Integer.parseInt(id.substring(1)) >= sentAfterRestart));
      long resumedMs = (System.nanoTime() - upAt) / 1_000_000;
      await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() > sentAfterRestart + 200);
      client.shutdown();
      assertThat(client.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      producer.flush();
      int produced = acked.size();
      Map<Integer, Long> ends = Kafkas.endOffsets(s.topic(), 2);
      long end = ends.values().stream().mapToLong(Long::longValue).sum();
      await().atMost(Duration.ofSeconds(60)).until(() -> Kafkas.caughtUp(group, s.topic(), ends));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  lag(s, "0") == 0
                      && lag(s, "1") == 0
                      && s.app().registry().find("amber.kafka.consumer.lag").gauges().size() == 2);

      // nothing below the committed offset is missing (each record holds its own event), and
      // nothing is stored twice
      Map<String, Integer> rows = storedIds(cql, d, base);
      assertThat(rows).hasSize((int) end);
      assertThat(rows.keySet()).containsAll(acked);
      assertThat(rows.values()).allMatch(n -> n == 1);
      // the consumer kept its membership: the poll loop never stalled past max.poll.interval.ms
      assertThat(Kafkas.members(group)).isEqualTo(membersBefore);
      assertThat(s.counter("amber.kafka.consumer.partitions", "change", "revoked")).isZero();
      assertThat(s.counter("amber.kafka.consumer.partitions", "change", "lost")).isZero();
      double maxGapMs =
          s.app()
              .registry()
              .find("amber.kafka.consumer.poll.gap")
              .timer()
              .max(TimeUnit.MILLISECONDS);
      assertThat(maxGapMs).isLessThan(MAX_POLL_INTERVAL_MS);
      double written = s.kafkaEventsWritten();
      ItLog.printf(
          "F3 broker restart: accepted %d, records %d, stored %d, writes %.0f (duplicates %.0f),"
              + " outage %d ms, resumed %d ms after the broker was back, longest poll gap %.0f ms,"
              + " members %s%n",
          produced,
          end,
          rows.size(),
          written,
          written - rows.size(),
          outageMs,
          resumedMs,
          maxGapMs,
          membersBefore);
    } finally {
      client.shutdownNow();
      // the next test class needs a healthy broker, whatever happened here
      RealServers.runtime().start();
    }
  }

  private static double lag(TestService s, String partition) {
    var g = s.app().registry().find("amber.kafka.consumer.lag").tag("partition", partition).gauge();
    return g == null ? -1 : g.value();
  }

  private static Map<String, Integer> storedIds(CqlSession cql, String device, long base) {
    return CassandraOutageIT.rowsByEventId(cql, device, base);
  }
}
