package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.ingest.DeadLetterHeaders;
import io.ambergarden.localrt.RealServers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * F19: a poison record larger than a dead letter may be (a compressed record far larger once
 * decompressed, or a letter over the dead-letter topic's limit). It is dead-lettered cut, with its
 * size, hash and coordinates; the records behind it land; the pod stays ready. A record whose
 * letter the topic refuses even bare is skipped with one ERROR line instead of stopping the pod.
 */
@ExtendWith(RealServers.class)
@Timeout(240)
class OversizedPoisonIT {
  private static final int BEHIND = 10;
  static KafkaProducer<byte[], byte[]> plain;
  static KafkaProducer<byte[], byte[]> lz4;

  @BeforeAll
  static void start() {
    plain = Kafkas.producer();
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    p.put("acks", "all");
    p.put("compression.type", "lz4");
    // the producer checks the uncompressed size; the broker sees the small compressed batch
    p.put("max.request.size", Integer.toString(8 * 1024 * 1024));
    p.put("buffer.memory", Integer.toString(32 * 1024 * 1024));
    lz4 = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    for (KafkaProducer<byte[], byte[]> p : new KafkaProducer[] {plain, lz4}) {
      if (p != null) {
        p.close();
      }
    }
  }

  private static String newTopic(Map<String, String> dlqConfigs) {
    String topic = "it-oversized-" + UUID.randomUUID().toString().substring(0, 8);
    Kafkas.createTopic(topic, 1);
    Kafkas.createTopic(topic + ".dlq", 1, dlqConfigs);
    return topic;
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** Polls readiness while waiting, so one 503 at any time fails the test. */
  private static boolean committedWhileReady(
      TestService s, String group, String topic, long expected, AtomicInteger notReady) {
    if (s.get("/health/ready").statusCode() != 200) {
      notReady.incrementAndGet();
    }
    return Kafkas.committedTotal(group, topic) == expected;
  }

  @Test
  void aFiveMegabyteLz4CompressedRecordIsDeadLetteredCutAndTheRecordsBehindItLand()
      throws Exception {
    String topic = newTopic(Map.of());
    String d = "oversized-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    byte[] huge = UnwritableRecordsIT.event(d, base, "huge", "x".repeat(5 * 1024 * 1024));

    try (TestService s = TestService.start(UnwritableRecordsIT.topicConfig(topic))) {
      String group = s.config().kafka().groupId();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> s.get("/health/ready").statusCode() == 200);
      long t0 = System.nanoTime();
      lz4.send(new ProducerRecord<>(topic, d.getBytes(), huge)).get(30, TimeUnit.SECONDS);
      for (int i = 0; i < BEHIND; i++) {
        Kafkas.send(plain, topic, d, UnwritableRecordsIT.event(d, base + 1 + i, "g" + i, null));
      }

      AtomicInteger notReady = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> committedWhileReady(s, group, topic, 1 + BEHIND, notReady));
      long settledMs = (System.nanoTime() - t0) / 1_000_000;

      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(topic + ".dlq", 1, Duration.ofSeconds(20));
      assertThat(dead).hasSize(1);
      ConsumerRecord<byte[], byte[]> letter = dead.get(0);
      assertThat(letter.value()).isEqualTo(Arrays.copyOf(huge, 16 * 1024));
      assertThat(letter.key()).isEqualTo(d.getBytes());
      assertThat(Kafkas.header(letter, DeadLetterHeaders.TRUNCATED)).isEqualTo("value");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ORIGINAL_SIZE))
          .isEqualTo(Integer.toString(huge.length));
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ORIGINAL_SHA256)).isEqualTo(sha256(huge));
      assertThat(Kafkas.header(letter, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topic);
      assertThat(Kafkas.header(letter, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("0");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ERROR_CLASS)).isEqualTo("InvalidDocument");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ERROR_MESSAGE))
          .contains("exceeds the event size cap of 4194304 bytes");

      try (CqlSession cql = TestService.cql()) {
        Map<String, Integer> rows = CassandraOutageIT.rowsByEventId(cql, d, base);
        assertThat(rows).hasSize(BEHIND).doesNotContainKey("huge");
      }
      assertThat(notReady).hasValue(0);
      assertThat(s.get("/health/ready").statusCode()).isEqualTo(200);
      assertThat(s.counter("amber.dead.letters.truncated")).isEqualTo(1.0);
      assertThat(s.counter("amber.dead.letters.lost")).isEqualTo(0.0);
      ItLog.printf(
          "F19 oversized: %d-byte lz4 record + %d behind it; committed %d, stored %d, one cut"
              + " letter of %d bytes, ready throughout (%d readiness polls failed), settled in %d"
              + " ms%n",
          huge.length,
          BEHIND,
          Kafkas.committedTotal(group, topic),
          BEHIND,
          letter.serializedValueSize(),
          notReady.get(),
          settledMs);
    }
  }

  @Test
  void aDeadLetterTheTopicRefusesWholeIsSentBareAndConsumptionGoesOn() throws Exception {
    String topic = newTopic(Map.of("max.message.bytes", "1024"));
    String d = "refused-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    // not an event; random bytes, so compression cannot shrink its whole letter under 1 KiB
    byte[] poison = new byte[4096];
    new Random(7).nextBytes(poison);
    Kafkas.send(plain, topic, d, poison);
    for (int i = 0; i < BEHIND; i++) {
      Kafkas.send(plain, topic, d, UnwritableRecordsIT.event(d, base + i, "g" + i, null));
    }

    try (TestService s = TestService.start(UnwritableRecordsIT.topicConfig(topic))) {
      String group = s.config().kafka().groupId();
      AtomicInteger notReady = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> s.get("/health/ready").statusCode() == 200);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> committedWhileReady(s, group, topic, 1 + BEHIND, notReady));

      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(topic + ".dlq", 1, Duration.ofSeconds(20));
      assertThat(dead).hasSize(1);
      ConsumerRecord<byte[], byte[]> letter = dead.get(0);
      assertThat(letter.value()).isEmpty();
      assertThat(Kafkas.header(letter, DeadLetterHeaders.TRUNCATED)).isEqualTo("value");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo("4096");
      assertThat(Kafkas.header(letter, DeadLetterHeaders.ORIGINAL_SHA256))
          .isEqualTo(sha256(poison));
      assertThat(Kafkas.header(letter, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
      try (CqlSession cql = TestService.cql()) {
        assertThat(CassandraOutageIT.rowsByEventId(cql, d, base)).hasSize(BEHIND);
      }
      assertThat(notReady).hasValue(0);
      assertThat(s.counter("amber.dead.letters.truncated")).isEqualTo(1.0);
      ItLog.printf(
          "F19 refused whole: a 4096-byte poison record and %d behind it on a dead-letter topic of"
              + " max.message.bytes 1024; committed %d, stored %d, one bare letter, ready"
              + " throughout%n",
          BEHIND, Kafkas.committedTotal(group, topic), BEHIND);
    }
  }

  @Test
  void aRecordWhoseDeadLetterTheTopicRefusesEvenBareIsSkippedWithOneErrorLine() throws Exception {
    String topic = newTopic(Map.of("max.message.bytes", "100"));
    String d = "lost-" + UUID.randomUUID();
    long base = System.currentTimeMillis() - 60_000;
    byte[] poison = "{not json".getBytes(StandardCharsets.UTF_8);
    Kafkas.send(plain, topic, d, poison);
    for (int i = 0; i < BEHIND; i++) {
      Kafkas.send(plain, topic, d, UnwritableRecordsIT.event(d, base + i, "g" + i, null));
    }

    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger poisonLog = (Logger) LoggerFactory.getLogger("io.ambergarden.ingest.PoisonRecords");
    poisonLog.addAppender(log);
    try (TestService s = TestService.start(UnwritableRecordsIT.topicConfig(topic))) {
      String group = s.config().kafka().groupId();
      AtomicInteger notReady = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> s.get("/health/ready").statusCode() == 200);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> committedWhileReady(s, group, topic, 1 + BEHIND, notReady));

      assertThat(Kafkas.readAll(topic + ".dlq", 1, Duration.ofSeconds(2))).isEmpty();
      try (CqlSession cql = TestService.cql()) {
        assertThat(CassandraOutageIT.rowsByEventId(cql, d, base)).hasSize(BEHIND);
      }
      assertThat(notReady).hasValue(0);
      assertThat(s.counter("amber.dead.letters.lost")).isEqualTo(1.0);
      List<ILoggingEvent> mine;
      synchronized (log) {
        mine = log.list.stream().filter(e -> e.getFormattedMessage().contains(topic)).toList();
      }
      assertThat(mine).hasSize(1);
      assertThat(mine.get(0).getLevel()).isEqualTo(Level.ERROR);
      assertThat(mine.get(0).getFormattedMessage())
          .contains(topic + "-0@0")
          .contains("RecordTooLargeException")
          .contains("record skipped")
          .contains("SHA-256 " + sha256(poison));
      ItLog.printf(
          "F19 no letter writable: committed %d, stored %d, lost counter 1, one ERROR line, ready"
              + " throughout%n",
          Kafkas.committedTotal(group, topic), BEHIND);
    } finally {
      poisonLog.detachAppender(log);
    }
  }
}
