package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three-broker local Kafka as users run it (RF 3, min ISR 2): a killed partition leader costs a
 * pause, not an acknowledged record; with two brokers gone, acks=all produce is refused rather than
 * acknowledged. Starts its own cluster on 127.0.0.11..13 (the test ports), no Cassandra.
 */
class KafkaFailoverClusterIT {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaFailoverClusterIT.class);
  private static final Duration RECOVERY = Duration.ofMinutes(2);

  private static KafkaCluster cluster;
  private static KafkaClusterAdmin admin;

  @BeforeAll
  static void startCluster() {
    cluster = new KafkaCluster(RealServers.testOptions(), KafkaServerConfig.CLUSTER_SIZE, 0);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "kafka-cluster-it-shutdown"));
    cluster.start();
    LOG.info(
        "Three brokers ready in {} ms, RSS {} MiB in all",
        cluster.lastStartDuration().orElseThrow().toMillis(),
        cluster.residentMemoryKb().orElse(0L) / 1024);
    admin = KafkaClusterAdmin.of(cluster);
  }

  @AfterAll
  static void stopCluster() {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.stop();
    }
  }

  /** Every process runs again after a test that took some down. */
  @AfterEach
  void restartEverything() {
    cluster.start();
  }

  @Test
  void aKilledPartitionLeaderStopsNeitherProduceNorLosesAnAcknowledgedRecord() throws Exception {
    String topic = newTopic();
    int leader = admin.leaderOf(topic, 0).orElseThrow();
    int controller = admin.activeController();
    LOG.info("{}: leader {}, active controller {}", topic, leader, controller);

    int beforeKill;
    int afterKill;
    long failoverMs;
    BitSet acked;
    try (SequenceProducer producer =
        new SequenceProducer(cluster.bootstrapServers(), topic, 200_000, Duration.ofMinutes(2))
            .start()) {
      await().atMost(RECOVERY).until(() -> producer.ackedCount() >= 2_000);
      beforeKill = producer.ackedCount();
      long killedAt = System.nanoTime();
      cluster.kill(leader);
      await()
          .atMost(RECOVERY)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> producer.ackedCount() >= beforeKill + 2_000);
      failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
      afterKill = producer.ackedCount();
      producer.close();
      acked = producer.acked();
      LOG.info(
          "Sent {}, acknowledged {}, failed {}: {}",
          producer.sent(),
          acked.cardinality(),
          producer.failures().size(),
          producer.failures().stream().limit(3).toList());
    }
    int newLeader = admin.leaderOf(topic, 0).orElseThrow();
    LOG.info(
        "Killed leader {}: 2000 more acks within {} ms; new leader {}, controller {}",
        leader,
        failoverMs,
        newLeader,
        admin.activeController());
    assertThat(newLeader).isNotEqualTo(leader);
    assertThat(afterKill).isGreaterThanOrEqualTo(beforeKill + 2_000);

    Consumed consumed = consumeAll(cluster.bootstrapServers(), topic);
    BitSet lost = (BitSet) acked.clone();
    lost.andNot(consumed.values());
    assertThat(lost.cardinality()).as("acknowledged records missing: %s", lost).isZero();
    assertThat(consumed.duplicates()).as("duplicates of an idempotent producer").isZero();

    long t0 = System.nanoTime();
    cluster.start(leader);
    long startMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    Duration recovery = admin.awaitFullyReplicated(topic, RECOVERY);
    LOG.info(
        "Broker {} restarted in {} ms, all replicas in sync {} ms later",
        leader,
        startMs,
        recovery.toMillis());
  }

  @Test
  void aKilledActiveControllerIsReplacedWhileProduceGoesOn() throws Exception {
    String topic = newTopic();
    int controller = admin.activeController();
    try (SequenceProducer producer =
        new SequenceProducer(cluster.bootstrapServers(), topic, 200_000, Duration.ofMinutes(2))
            .start()) {
      await().atMost(RECOVERY).until(() -> producer.ackedCount() >= 1_000);
      long killedAt = System.nanoTime();
      cluster.kill(controller);
      int[] next = new int[1];
      await()
          .atMost(RECOVERY)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(() -> (next[0] = admin.activeController()) != controller);
      long electedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
      int acked = producer.ackedCount();
      await().atMost(RECOVERY).until(() -> producer.ackedCount() >= acked + 1_000);
      LOG.info(
          "Killed active controller {}: {} active after {} ms", controller, next[0], electedMs);
      producer.close();
      assertThat(producer.failures()).isEmpty();
    }
    cluster.start(controller);
    assertThat(admin.activeController()).isNotNegative();
  }

  @Test
  void withTwoOfThreeBrokersDownAcksAllProduceIsRefusedNotAcknowledged() throws Exception {
    String topic = newTopic();
    int leader = admin.leaderOf(topic, 0).orElseThrow();
    List<Integer> followers =
        cluster.brokers().stream().map(KafkaBroker::nodeId).filter(id -> id != leader).toList();
    followers.forEach(cluster::kill);
    // no retries, so each send reports the broker's own answer; idempotence needs retries
    Properties config = SequenceProducer.config(cluster.bootstrapServers(), Duration.ofSeconds(30));
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    config.put(ProducerConfig.RETRIES_CONFIG, "0");
    List<String> refusals = new ArrayList<>();
    Throwable last = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      // until the controllers fence the dead followers (9 s without a heartbeat) the leader waits
      // for them and the request times out; then the ISR is the leader alone
      while (!(last instanceof NotEnoughReplicasException) && System.nanoTime() < deadline) {
        try {
          RecordMetadata acked =
              producer.send(new ProducerRecord<>(topic, "refused")).get(30, TimeUnit.SECONDS);
          throw new AssertionError("acknowledged with two of three brokers down: " + acked);
        } catch (ExecutionException e) {
          last = e.getCause();
          refusals.add(last.getClass().getSimpleName());
        }
      }
    }
    LOG.info("{} with brokers {} down, sends refused with {}", topic, followers, refusals);
    if (cluster.topology() == KafkaServerConfig.Topology.DEDICATED) {
      // the controllers, still a quorum, took the dead followers out of the ISR
      assertThat(last).isInstanceOf(NotEnoughReplicasException.class);
    } else {
      // the two dead brokers were two of three controllers: nothing shrinks the ISR, every send
      // times out unacknowledged
      assertThat(refusals).isNotEmpty().doesNotContain("NotEnoughReplicasException");
    }
  }

  private static String newTopic() throws Exception {
    String topic = "failover-" + UUID.randomUUID();
    try (Admin a = Admin.create(KafkaBroker.adminConfig(cluster.bootstrapServers()))) {
      // no replication factor given: the brokers' default (3) applies, as for the service's topics
      a.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())))
          .all()
          .get(30, TimeUnit.SECONDS);
      ConfigResource broker = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      // the broker asked may learn of the new topic a moment after the controller made it
      Config config =
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .until(
                  () ->
                      a.describeConfigs(List.of(broker))
                          .all()
                          .get(10, TimeUnit.SECONDS)
                          .get(broker),
                  java.util.Objects::nonNull);
      assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");
    }
    admin.awaitFullyReplicated(topic, RECOVERY);
    assertThat(admin.partitions(topic))
        .singleElement()
        .satisfies(p -> assertThat(p.replicas()).hasSize(3));
    return topic;
  }

  /** The distinct values read, and how many records repeated one. */
  record Consumed(BitSet values, int duplicates) {}

  /** Every record of partition 0, from the start to the end offset of now. */
  static Consumed consumeAll(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    BitSet seen = new BitSet();
    int duplicates = 0;
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
      long deadline = System.nanoTime() + RECOVERY.toNanos();
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          int v = Integer.parseInt(r.value());
          duplicates += seen.get(v) ? 1 : 0;
          seen.set(v);
        }
      }
      assertThat(c.position(tp)).as("read up to the end offset").isEqualTo(end);
    }
    return new Consumed(seen, duplicates);
  }
}
