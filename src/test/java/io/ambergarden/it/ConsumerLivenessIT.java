package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.ingest.KafkaIngestVerticle;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The consumer verticle against the real broker, with a stand-in writer on the event bus that fails
 * or slows down the events a test chooses: faults one Cassandra node cannot produce on demand for a
 * single record.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class ConsumerLivenessIT {
  private Vertx vertx;
  private final Set<String> stored = ConcurrentHashMap.newKeySet();
  private final Set<String> failing = ConcurrentHashMap.newKeySet();
  private volatile long writeDelayMs;

  @BeforeEach
  void standInWriter() {
    vertx = Vertx.vertx();
    LocalCodec.registerAll(vertx);
    vertx.eventBus().<PersistRequest>consumer(Addresses.WRITER_PERSIST.address(), this::persist);
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** Fails the whole request as the store would (unavailable) when it holds a failing event. */
  private void persist(Message<PersistRequest> msg) {
    var events = msg.body().events();
    Runnable answer =
        () -> {
          if (events.stream().map(Event::eventId).anyMatch(failing::contains)) {
            FailureCode.UNAVAILABLE.fail(msg, "not enough replicas (stand-in)");
          } else {
            events.forEach(e -> stored.add(e.eventId()));
            msg.reply(new PersistResult(events.size()));
          }
        };
    if (writeDelayMs > 0) {
      vertx.setTimer(writeDelayMs, id -> answer.run());
    } else {
      answer.run();
    }
  }

  private static AmberConfig config(String topic, int partitions, Map<String, String> more) {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("kafka.bootstrap-servers", RealServers.kafkaBootstrap());
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", topic + "-group");
    cfg.put("kafka.topic-partitions", Integer.toString(partitions));
    cfg.put("kafka.consumer.commit-interval", "200ms");
    cfg.putAll(more);
    Kafkas.createTopic(topic, partitions);
    Kafkas.createTopic(topic + ".dlq", 1);
    return ConfigLoader.load(Map.of(), new Properties(), cfg);
  }

  private String deployConsumer(AmberConfig config, HealthState health) throws Exception {
    return deployConsumer(config, health, new SimpleMeterRegistry());
  }

  private String deployConsumer(AmberConfig config, HealthState health, MeterRegistry registry)
      throws Exception {
    return vertx
        .deployVerticle(
            new KafkaIngestVerticle(
                config,
                new EventParser(),
                health,
                new AmberMeters(registry, config.kafka().topic())))
        .await(60, TimeUnit.SECONDS);
  }

  private static long polls(MeterRegistry registry) {
    var gap = registry.find("amber.kafka.consumer.poll.gap").timer();
    return gap == null ? 0 : gap.count();
  }

  /**
   * F12 under light traffic: one record fails transiently for longer than the retry time, and its
   * own retries open the breaker. The breaker's half-open probe lets the records behind it through,
   * their success shows the store is up, so the record is dead-lettered and the lag returns to 0.
   */
  @Test
  void aRecordFailingTransientlyPastTheRetryTimeIsDeadLetteredAndTheTenBehindItAreStored()
      throws Exception {
    String topic = "live-" + UUID.randomUUID().toString().substring(0, 8);
    AmberConfig config =
        config(
            topic,
            1,
            Map.of(
                "kafka.consumer.retry-timeout", "3s",
                "kafka.retry.max-backoff", "500ms",
                "kafka.breaker.failure-threshold", "3",
                "kafka.breaker.reset-timeout", "500ms"));
    String device = "d-" + UUID.randomUUID();
    failing.add("bad");
    HealthState health = new HealthState(AmberConfig.IngestMode.KAFKA);
    MeterRegistry registry = new SimpleMeterRegistry();
    deployConsumer(config, health, registry);
    long base = System.currentTimeMillis() - 60_000;
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      Kafkas.send(producer, topic, device, CassandraOutageIT.event(device, base, "bad"));
      // the breaker opens on the bad record's own retries before the good ones arrive
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> health.toJson().toString().contains("FAILING"));
      // the pause is applied before the next poll: after two more polls, nothing more is fetched
      long pollsAtOpen = polls(registry);
      await().atMost(Duration.ofSeconds(10)).until(() -> polls(registry) >= pollsAtOpen + 2);
      for (int i = 0; i < 10; i++) {
        Kafkas.send(
            producer, topic, device, CassandraOutageIT.event(device, base + 1 + i, "g" + i));
      }
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> stored.size() == 10);
    long storedMs = (System.nanoTime() - t0) / 1_000_000;
    var dead = Kafkas.readAll(topic + ".dlq", 1, Duration.ofSeconds(60));
    assertThat(dead).hasSize(1);
    ConsumerRecord<byte[], byte[]> letter = dead.get(0);
    assertThat(new String(letter.value(), StandardCharsets.UTF_8)).contains("\"bad\"");
    long deadMs = (System.nanoTime() - t0) / 1_000_000;
    Map<Integer, Long> ends = Kafkas.endOffsets(topic, 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Kafkas.caughtUp(config.kafka().groupId(), topic, ends));
    long caughtUpMs = (System.nanoTime() - t0) / 1_000_000;
    assertThat(stored).doesNotContain("bad");
    ItLog.printf(
        "F12 light traffic: 10 good records stored %d ms, bad one dead-lettered %d ms, lag 0 at %d ms"
            + " after the bad record was sent (retry timeout 3 s)%n",
        storedMs, deadMs, caughtUpMs);
  }

  /** More members than partitions is normal (more pods than partitions): every member is ready. */
  @Test
  void aMemberAssignedNoPartitionHasJoinedAndIsReady() throws Exception {
    String topic = "idle-" + UUID.randomUUID().toString().substring(0, 8);
    AmberConfig config = config(topic, 1, Map.of());
    HealthState first = joinedHealth();
    HealthState second = joinedHealth();
    deployConsumer(config, first);
    deployConsumer(config, second);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Kafkas.members(config.kafka().groupId()).size() == 2);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> consumerCheck(first).equals("JOINED") && consumerCheck(second).equals("JOINED"));
    assertThat(first.ready()).isTrue();
    assertThat(second.ready()).isTrue();
  }

  /**
   * Pausing and resuming race rebalances: a second member joins and leaves again and again while a
   * slow writer keeps the first one pausing and resuming at its in-flight cap. Every record is
   * stored and the lag returns to 0, so no partition was left paused.
   */
  @Test
  void repeatedJoinsAndLeavesUnderASlowWriterLeaveNoPartitionPaused() throws Exception {
    String topic = "churn-" + UUID.randomUUID().toString().substring(0, 8);
    AmberConfig config =
        config(
            topic,
            4,
            Map.of(
                "kafka.consumer.max-in-flight", "20",
                "kafka.consumer.write-batch", "10",
                "kafka.consumer.max-poll-records", "20"));
    writeDelayMs = 20;
    int records = 3_000;
    deployConsumer(config, joinedHealth());
    long base = System.currentTimeMillis() - 60_000;
    // a client produces 100 records every 100 ms, so the churn happens while records flow
    AtomicInteger sent = new AtomicInteger();
    ScheduledExecutorService client = Executors.newSingleThreadScheduledExecutor();
    KafkaProducer<byte[], byte[]> producer = Kafkas.producer();
    client.scheduleAtFixedRate(
        () -> {
          for (int n = 0; n < 100 && sent.get() < records; n++) {
            int i = sent.getAndIncrement();
            String device = "c" + (i % 16);
            producer.send(
                new ProducerRecord<>(
                    topic,
                    device.getBytes(StandardCharsets.UTF_8),
                    CassandraOutageIT.event(device, base + i, "r" + i)));
          }
        },
        0,
        100,
        TimeUnit.MILLISECONDS);
    int cycles = 0;
    while (sent.get() < records || cycles < 4) {
      HealthState second = joinedHealth();
      String id = deployConsumer(config, second);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Kafkas.members(config.kafka().groupId()).size() == 2);
      vertx.undeploy(id).await(60, TimeUnit.SECONDS);
      cycles++;
    }
    client.shutdown();
    assertThat(client.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    producer.close();
    Map<Integer, Long> ends = Kafkas.endOffsets(topic, 4);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> Kafkas.caughtUp(config.kafka().groupId(), topic, ends));
    assertThat(stored.stream().filter(id -> id.startsWith("r"))).hasSize(records);
    ItLog.printf(
        "F16 churn: %d records stored through %d joins and leaves with a 20 ms writer%n",
        records, cycles);
  }

  private static HealthState joinedHealth() {
    HealthState h = new HealthState(AmberConfig.IngestMode.KAFKA);
    h.kafkaUsable(true);
    h.cassandraUsable(true);
    return h;
  }

  private static String consumerCheck(HealthState h) {
    return h.toJson().getJsonObject("checks").getString("consumer");
  }
}
