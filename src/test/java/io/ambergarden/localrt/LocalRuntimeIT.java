package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Smoke test of the real servers the integration tests run against. */
@ExtendWith(RealServers.class)
class LocalRuntimeIT {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRuntimeIT.class);

  @Test
  void cassandraAnswersCql() {
    try (CqlSession session =
        RealServers.runtime().cassandra().openSession(Duration.ofSeconds(10))) {
      Row row = session.execute("SELECT release_version, data_center FROM system.local").one();
      assertThat(row).isNotNull();
      assertThat(row.getString("release_version")).startsWith("5.0");
      assertThat(row.getString("data_center")).isEqualTo(CassandraNode.LOCAL_DATACENTER);
    }
    assertThat(RealServers.cassandraContactPoint())
        .isEqualTo("127.0.0.1:" + RealServers.runtime().cqlPort());
    logResources();
  }

  @Test
  void kafkaCreatesATopicAndDeliversARecord() throws Exception {
    String topic = "localrt-it-" + UUID.randomUUID();
    try (Admin admin = Admin.create(KafkaBroker.adminConfig(RealServers.kafkaBootstrap()))) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).contains(topic);
    }

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, RealServers.kafkaBootstrap());
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, "device-1", "hello")).get(30, TimeUnit.SECONDS);
    }

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, RealServers.kafkaBootstrap());
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, "localrt-it");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(Set.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (received.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(received::add);
      }
      consumer.commitSync();
      assertThat(
              consumer
                  .committed(Set.of(new TopicPartition(topic, 0)))
                  .get(new TopicPartition(topic, 0)))
          .isNotNull();
    }
    assertThat(received)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.key()).isEqualTo("device-1");
              assertThat(r.value()).isEqualTo("hello");
            });
  }

  @Test
  void cassandraKeepsItsDataAcrossAStopAndStart() {
    CassandraNode cassandra = RealServers.runtime().cassandra();
    String id = UUID.randomUUID().toString();
    try (CqlSession session = cassandra.openSession(Duration.ofSeconds(10))) {
      session.execute(
          "CREATE KEYSPACE IF NOT EXISTS localrt_it WITH replication = "
              + "{'class': 'SimpleStrategy', 'replication_factor': 1}");
      session.execute(
          "CREATE TABLE IF NOT EXISTS localrt_it.restart_probe (id text PRIMARY KEY, note text)");
      session.execute(
          "INSERT INTO localrt_it.restart_probe (id, note) VALUES ('"
              + id
              + "', 'before restart')");
    }

    cassandra.stop();
    assertThat(cassandra.isRunning()).isFalse();
    assertThat(Ports.accepts(cassandra.cqlPort(), 500)).isFalse();
    LOG.info("Cassandra stopped in {} ms", cassandra.lastStopDuration().orElseThrow().toMillis());

    cassandra.start();
    LOG.info(
        "Cassandra warm start took {} ms", cassandra.lastStartDuration().orElseThrow().toMillis());

    try (CqlSession session = cassandra.openSession(Duration.ofSeconds(10))) {
      Row row =
          session
              .execute("SELECT note FROM localrt_it.restart_probe WHERE id = '" + id + "'")
              .one();
      assertThat(row).isNotNull();
      assertThat(row.getString("note")).isEqualTo("before restart");
    }
  }

  @Test
  void theObjectStoreAnswersSignedRequestsAndRefusesWrongCredentials() {
    S3ProxyServer store = RealServers.runtime().objectStore();
    String bucket = "localrt-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    try (software.amazon.awssdk.services.s3.S3Client good = s3(store, store.secretKey());
        software.amazon.awssdk.services.s3.S3Client bad = s3(store, store.secretKey() + "x")) {
      good.createBucket(b -> b.bucket(bucket));
      good.putObject(
          b -> b.bucket(bucket).key("k"),
          software.amazon.awssdk.core.sync.RequestBody.fromString("hello"));
      assertThat(good.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String())
          .isEqualTo("hello");
      assertThatThrownBy(() -> bad.getObjectAsBytes(b -> b.bucket(bucket).key("k")))
          .isInstanceOf(software.amazon.awssdk.services.s3.model.S3Exception.class)
          .satisfies(
              e ->
                  assertThat(
                          ((software.amazon.awssdk.services.s3.model.S3Exception) e).statusCode())
                      .isEqualTo(403));
      good.deleteObject(b -> b.bucket(bucket).key("k"));
      good.deleteBucket(b -> b.bucket(bucket));
    }
  }

  private static software.amazon.awssdk.services.s3.S3Client s3(
      S3ProxyServer store, String secret) {
    return software.amazon.awssdk.services.s3.S3Client.builder()
        .endpointOverride(java.net.URI.create(store.endpoint()))
        .region(software.amazon.awssdk.regions.Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                    store.accessKey(), secret)))
        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
        .build();
  }

  private static void logResources() {
    LocalRuntime rt = RealServers.runtime();
    LOG.info(
        "RSS: Cassandra pid {} {} MiB, Kafka pid {} {} MiB",
        rt.cassandra().pid().orElse(-1L),
        rt.cassandra().residentMemoryKb().map(kb -> kb / 1024).orElse(-1L),
        rt.kafka().pid().orElse(-1L),
        rt.kafka().residentMemoryKb().map(kb -> kb / 1024).orElse(-1L));
  }
}
