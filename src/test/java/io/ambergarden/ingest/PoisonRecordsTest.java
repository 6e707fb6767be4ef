package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.FieldError;
import io.ambergarden.health.HealthState;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What becomes of a poison record whose dead letter cannot be written, and of the guard. */
class PoisonRecordsTest {
  private final Vertx vertx = Vertx.vertx();
  private final AmberConfig config = ConfigLoader.load(Map.of(), new Properties(), Map.of());
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AmberMeters meters = new AmberMeters(registry, "amber.events");
  private final HealthState health = new HealthState(AmberConfig.IngestMode.KAFKA);
  private final AtomicInteger stops = new AtomicInteger();
  private final AtomicInteger progress = new AtomicInteger();
  private final OffsetTracker<String> tracker = new OffsetTracker<>();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** The dead-letter topic refuses every letter as too large (or only letters over a size). */
  private static DeadLetterWriter.Sender refusingOver(int maxValueBytes) {
    return new DeadLetterWriter.Sender() {
      @Override
      public Future<Void> send(ProducerRecord<byte[], byte[]> letter) {
        return letter.value() != null && letter.value().length <= maxValueBytes
            ? Future.succeededFuture()
            : Future.failedFuture(new RecordTooLargeException("over max.message.bytes"));
      }

      @Override
      public Future<Void> close() {
        return Future.succeededFuture();
      }
    };
  }

  private PoisonRecords poison(DeadLetterWriter.Sender sender) {
    DeadLetterWriter writer =
        new DeadLetterWriter(vertx, "amber.events.dlq", new RetryPolicy(10_000, 100), sender);
    return new PoisonRecords(
        config.kafka(),
        writer,
        health,
        meters,
        new ConsumerMeters(registry),
        stops::incrementAndGet,
        progress::incrementAndGet);
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
    return new ConsumerRecord<>(
        "amber.events",
        0,
        offset,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        "d".getBytes(StandardCharsets.UTF_8),
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  private void invalid(PoisonRecords p, long offset, byte[] value) {
    OffsetTracker.Entry e = tracker.begin("p", offset);
    vertx.runOnContext(
        v -> p.invalid(record(offset, value), e, List.of(new FieldError(-1, "$", "too large"))));
  }

  private double counter(String name) {
    return registry.find(name).counter() == null ? -1 : registry.find(name).counter().count();
  }

  @Test
  void aRecordWithNoWritableDeadLetterIsSkippedAndCountedAndThePodStaysReady() {
    tracker.assign(List.of("p"));
    PoisonRecords p = poison(refusingOver(-1));
    health.kafkaUsable(true);
    health.consumerExpected(true);
    health.consumerJoined(true);

    invalid(p, 0, new byte[5 * 1024 * 1024]);

    await().atMost(Duration.ofSeconds(10)).until(() -> tracker.inFlight() == 0);
    assertThat(tracker.toCommit()).containsEntry("p", 1L);
    assertThat(counter("amber.dead.letters.lost")).isEqualTo(1.0);
    assertThat(counter("amber.dead.letters")).isEqualTo(0.0);
    assertThat(p.stopped()).isFalse();
    assertThat(stops).hasValue(0);
    assertThat(progress).hasValue(1);
    assertThat(health.deadLetterGuardTripped()).isFalse();
    assertThat(health.ready()).isTrue();
  }

  @Test
  void anOversizedRecordIsDeadLetteredCutAndTheGuardStaysUntripped() {
    tracker.assign(List.of("p"));
    PoisonRecords p = poison(refusingOver(DeadLetters.TRUNCATED_VALUE_BYTES));

    invalid(p, 0, new byte[5 * 1024 * 1024]);

    await().atMost(Duration.ofSeconds(10)).until(() -> tracker.inFlight() == 0);
    assertThat(counter("amber.dead.letters")).isEqualTo(1.0);
    assertThat(counter("amber.dead.letters.truncated")).isEqualTo(1.0);
    assertThat(counter("amber.dead.letters.lost")).isEqualTo(0.0);
    assertThat(p.stopped()).isFalse();
    assertThat(health.deadLetterGuardTripped()).isFalse();
  }

  @Test
  void aFloodOfPoisonTripsTheGuardWithOneErrorLine() {
    tracker.assign(List.of("p"));
    PoisonRecords p = poison(refusingOver(Integer.MAX_VALUE));
    int minSamples = config.kafka().dlqGuardMinSamples();
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(PoisonRecords.class);
    logger.addAppender(log);
    try {
      for (int i = 0; i < minSamples + 10; i++) {
        invalid(p, i, new byte[] {'x'});
      }

      // the first minSamples - 1 were dead-lettered; the one that tripped it and those after stay
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  p.stopped()
                      && health.deadLetterGuardTripped()
                      && p.abandoned() == 11
                      && tracker.inFlight() == 11);
      assertThat(stops.get()).isPositive();
      List<ILoggingEvent> lines;
      synchronized (log) {
        lines = List.copyOf(log.list);
      }
      assertThat(lines)
          .filteredOn(e -> e.getFormattedMessage().contains("dead-letter guard tripped"))
          .singleElement()
          .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR))
          .satisfies(
              e -> assertThat(e.getFormattedMessage()).contains("% of recent records are poison"));
    } finally {
      logger.detachAppender(log);
    }
  }
}
