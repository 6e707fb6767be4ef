package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F18: Cassandra and the broker both away for longer than the consumer's session timeout, then
 * back. While the store is down the breaker is open and every partition paused; the group then
 * drops this member, so its partitions are lost and handed back, paused, with nothing left in
 * flight to try the store with. The half-open breaker must still probe, and the consumer must
 * resume by itself once the store answers.
 */
@ExtendWith(RealServers.class)
@Timeout(600)
class StoreAndBrokerOutageIT {
  private static final int BEFORE = 100;
  private static final int DURING = 100;

  /** kafka-clients' default session.timeout.ms, which the service does not change. */
  private static final long SESSION_TIMEOUT_MS = 45_000;

  @Test
  void theConsumerResumesByItselfAndTheLagReturnsToZeroAfterStoreAndBrokerWereAwayTogether()
      throws Exception {
    CassandraNode cassandra = RealServers.runtime().cassandra();
    KafkaBroker broker = RealServers.runtime().kafka();
    String device = "f18-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    AtomicBoolean stalledReported = new AtomicBoolean();
    try (TestService s =
            TestService.start(
                Map.of(
                    "cassandra.request-timeout", "2s",
                    "writer.request-timeout", "5s",
                    "kafka.breaker.reset-timeout", "1s",
                    "kafka.consumer.stall-timeout", "5s"));
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      String group = s.config().kafka().groupId();
      for (int i = 0; i < BEFORE; i++) {
        Kafkas.send(
            producer, s.topic(), device, CassandraOutageIT.event(device, base + i, "k" + i));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.committedTotal(group, s.topic()) == BEFORE);

      long frozenMs;
      long downAt = System.nanoTime();
      cassandra.stop();
      try {
        for (int i = BEFORE; i < BEFORE + DURING; i++) {
          Kafkas.send(
              producer, s.topic(), device, CassandraOutageIT.event(device, base + i, "k" + i));
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> checks(s).getString("writes").equals("FAILING"));
        // lag, paused partitions and no progress: reported in the body and the metric, while the
        // pod stays ready because Cassandra is down (F13)
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> checks(s).getString("consumer").equals("STALLED") && stalledGauge(s) == 1);
        stalledReported.set(true);
        assertThat(s.get("/health/ready").statusCode()).isEqualTo(200);

        long frozenAt = System.nanoTime();
        broker.pause();
        try {
          await()
              .pollInterval(Duration.ofSeconds(1))
              .atMost(Duration.ofSeconds(120))
              .until(
                  () -> (System.nanoTime() - frozenAt) / 1_000_000 > SESSION_TIMEOUT_MS + 10_000);
        } finally {
          broker.resume();
        }
        frozenMs = (System.nanoTime() - frozenAt) / 1_000_000;
        // A frozen broker reads the heartbeats queued in its sockets before its session timers
        // fire, so the member usually survives the freeze; the group then drops it as an expired
        // session would (as a longer outage or a broker failover does): the member's partitions
        // are lost and handed back, paused, with the records in flight dropped.
        Kafkas.removeAllMembers(group);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> s.counter("amber.kafka.consumer.partitions", "change", "lost") > 0);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> s.counter("amber.kafka.consumer.partitions", "change", "assigned") > 2);
        // still paused, since the store is still down
        assertThat(Kafkas.committedTotal(group, s.topic())).isLessThan(BEFORE + DURING);
      } finally {
        cassandra.start();
      }
      long upAt = System.nanoTime();

      Map<Integer, Long> ends = Kafkas.endOffsets(s.topic(), 2);
      await().atMost(Duration.ofSeconds(120)).until(() -> Kafkas.caughtUp(group, s.topic(), ends));
      long recoveredMs = (System.nanoTime() - upAt) / 1_000_000;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  checks(s).getString("writes").equals("UP")
                      && checks(s).getString("consumer").equals("JOINED")
                      && s.get("/health/ready").statusCode() == 200);
      try (CqlSession cql = TestService.cql()) {
        Map<String, Integer> rows = CassandraOutageIT.rowsByEventId(cql, device, base);
        assertThat(rows).hasSize(BEFORE + DURING);
        assertThat(rows.values()).allMatch(n -> n == 1);
      }
      ItLog.printf(
          "F18 store and broker away: outage %d ms (broker frozen %d ms, session timeout %d ms),"
              + " partitions lost %.0f revoked %.0f assigned %.0f; all %d records committed %d ms"
              + " after Cassandra was back%n",
          (upAt - downAt) / 1_000_000,
          frozenMs,
          SESSION_TIMEOUT_MS,
          s.counter("amber.kafka.consumer.partitions", "change", "lost"),
          s.counter("amber.kafka.consumer.partitions", "change", "revoked"),
          s.counter("amber.kafka.consumer.partitions", "change", "assigned"),
          BEFORE + DURING,
          recoveredMs);
    } finally {
      // the next test class needs both servers, whatever happened here
      RealServers.runtime().start();
    }
    assertThat(stalledReported).isTrue();
  }

  /** Read off the registry: /metrics needs a key check, which waits for Cassandra. */
  private static double stalledGauge(TestService s) {
    var g = s.app().registry().find("amber.kafka.consumer.stalled").gauge();
    return g == null ? -1 : g.value();
  }

  private static JsonObject checks(TestService s) {
    return new JsonObject(s.get("/health/ready").body()).getJsonObject("checks");
  }
}
