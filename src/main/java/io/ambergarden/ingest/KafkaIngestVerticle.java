package io.ambergarden.ingest;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventParser;
import io.ambergarden.event.FieldError;
import io.ambergarden.health.HealthState;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.metrics.AmberMeters;
import io.vertx.circuitbreaker.CircuitBreaker;
import io.vertx.circuitbreaker.CircuitBreakerOptions;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.kafka.client.common.TopicPartition;
import io.vertx.kafka.client.consumer.KafkaConsumer;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import io.vertx.kafka.client.consumer.KafkaConsumerRecords;
import io.vertx.kafka.client.consumer.OffsetAndMetadata;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.kafka.client.producer.KafkaProducerRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes amber.events at least once: a record's offset is committed only after it was written or
 * dead-lettered. Records in flight are capped; when the cap is hit or the writer's circuit breaker
 * opens, the assigned partitions are paused (never the poll loop, so max.poll.interval.ms is never
 * exceeded).
 */
public final class KafkaIngestVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaIngestVerticle.class);
  private static final long LINGER_MS = 2;
  private static final long LAG_INTERVAL_MS = 5000;
  private static final java.time.Duration POLL_TIMEOUT = java.time.Duration.ofMillis(100);

  private record Pending(OffsetTracker.Entry entry, Event event) {}

  private final AmberConfig config;
  private final AmberConfig.Kafka cfg;
  private final RecordDecoder decoder;
  private final HealthState health;
  private final OffsetTracker<TopicPartition> tracker = new OffsetTracker<>();
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final DeadLetterGuard guard;
  private KafkaConsumer<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> deadLetters;
  private CircuitBreaker breaker;
  private List<Pending> pending = new ArrayList<>();
  private long lingerTimer = -1;
  private long commitTimer = -1;
  private final AmberMeters meters;
  private long lagTimer = -1;

  /**
   * When a record last finished, or the consumer last had nothing in flight: the stall detector's
   * clock.
   */
  private long lastProgress = System.currentTimeMillis();

  private boolean paused;
  private boolean stopping;

  public KafkaIngestVerticle(
      AmberConfig config, EventParser parser, HealthState health, AmberMeters meters) {
    this.config = config;
    this.meters = meters;
    this.cfg = config.kafka();
    this.decoder = new RecordDecoder(parser);
    this.health = health;
    this.guard =
        new DeadLetterGuard(cfg.dlqGuardWindow(), cfg.dlqGuardMinSamples(), cfg.dlqGuardMaxRatio());
  }

  @Override
  public Future<?> start() {
    consumer =
        KafkaConsumer.create(
            vertx,
            KafkaSettings.consumer(cfg),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    deadLetters =
        KafkaProducer.create(
            vertx,
            KafkaSettings.producer(cfg, "amber-dlq"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    breaker =
        CircuitBreaker.create(
            "amber-kafka-writes",
            vertx,
            new CircuitBreakerOptions()
                .setMaxFailures(cfg.breakerFailureThreshold())
                .setResetTimeout(cfg.breakerResetTimeout().toMillis())
                .setTimeout(-1));
    breaker
        .openHandler(
            v -> {
              LOG.warn("writes failing: circuit open, pausing {} partitions", assigned.size());
              health.writesBlocked(true);
              pauseAll();
            })
        .closeHandler(
            v -> {
              LOG.info("writes recovered: circuit closed");
              health.writesBlocked(false);
              maybeResume();
            });
    health.consumerExpected(true);
    consumer.partitionsAssignedHandler(
        tps -> {
          tracker.assign(tps);
          assigned.addAll(tps);
          health.consumerJoined(true);
          if (paused) {
            consumer.pause(tps);
          }
          LOG.info("assigned {}", tps);
        });
    consumer.partitionsRevokedHandler(
        tps -> {
          tracker.revoke(tps);
          assigned.removeAll(tps);
          LOG.info("revoked {}", tps);
        });
    consumer.exceptionHandler(err -> LOG.warn("kafka consumer error: {}", err.toString()));
    commitTimer = vertx.setPeriodic(cfg.commitInterval().toMillis(), id -> commit());
    lagTimer = vertx.setPeriodic(LAG_INTERVAL_MS, id -> observe());
    return consumer.subscribe(cfg.topic()).onSuccess(v -> poll());
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(commitTimer);
    vertx.cancelTimer(lagTimer);
    pauseAll();
    flush();
    long deadline = System.currentTimeMillis() + config.writer().requestTimeout().toMillis();
    return drain(deadline)
        .compose(v -> commit())
        .eventually(() -> consumer.close())
        .eventually(() -> deadLetters.close());
  }

  private Future<Void> drain(long deadline) {
    if (tracker.inFlight() == 0 || System.currentTimeMillis() >= deadline) {
      if (tracker.inFlight() > 0) {
        LOG.warn(
            "stopping with {} records unfinished; they will be redelivered", tracker.inFlight());
      }
      return Future.succeededFuture();
    }
    Promise<Void> p = Promise.promise();
    vertx.setTimer(20, id -> drain(deadline).onComplete(p));
    return p.future();
  }

  /**
   * Explicit polling: a whole batch per event-loop task. (The record handler hands over ten records
   * per task, so a busy shared event loop throttled consumption to a fixed rate.) Polling goes on
   * while partitions are paused, which keeps the consumer in its group.
   */
  private void poll() {
    if (stopping) {
      return;
    }
    consumer
        .poll(POLL_TIMEOUT)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                KafkaConsumerRecords<byte[], byte[]> records = ar.result();
                for (int i = 0; i < records.size(); i++) {
                  onRecord(records.recordAt(i));
                }
              } else if (!stopping) {
                LOG.warn("kafka poll failed: {}", ar.cause().toString());
              }
              vertx.runOnContext(v -> poll());
            });
  }

  private void onRecord(KafkaConsumerRecord<byte[], byte[]> rec) {
    if (stopping || guard.tripped()) {
      return; // not tracked, so never committed: redelivered after restart
    }
    OffsetTracker.Entry entry =
        tracker.begin(new TopicPartition(rec.topic(), rec.partition()), rec.offset());
    if (entry == null) {
      return;
    }
    EventParser.SingleResult parsed =
        decoder.decode(rec.value() == null ? new byte[0] : rec.value());
    if (!parsed.ok()) {
      meters.invalid(AmberMeters.Path.KAFKA);
      if (guard.record(true)) {
        LOG.error(
            "dead-letter guard tripped: {} of recent records are poison; consumption stopped",
            String.format("%.0f%%", guard.ratio() * 100));
        health.deadLetterGuardTripped(true);
        pauseAll();
        return;
      }
      deadLetter(rec, parsed.errors(), 1)
          .onSuccess(
              v -> {
                meters.deadLettered();
                progressed();
                entry.finish();
                maybeResume();
              });
    } else {
      guard.record(false);
      pending.add(new Pending(entry, parsed.event()));
      if (pending.size() >= cfg.writeBatch()) {
        flush();
      } else if (lingerTimer < 0) {
        lingerTimer =
            vertx.setTimer(
                LINGER_MS,
                id -> {
                  lingerTimer = -1;
                  flush();
                });
      }
    }
    if (tracker.inFlight() >= cfg.maxInFlight()) {
      pauseAll();
    }
  }

  private void flush() {
    if (lingerTimer >= 0) {
      vertx.cancelTimer(lingerTimer);
      lingerTimer = -1;
    }
    if (pending.isEmpty()) {
      return;
    }
    List<Pending> batch = pending;
    pending = new ArrayList<>();
    write(batch, 1);
  }

  private void write(List<Pending> batch, int attempt) {
    List<Event> events = batch.stream().map(Pending::event).toList();
    DeliveryOptions opts =
        new DeliveryOptions().setSendTimeout(config.writer().requestTimeout().toMillis());
    breaker
        .<Object>execute(
            () ->
                vertx
                    .eventBus()
                    .request(
                        Addresses.WRITER_PERSIST,
                        new PersistRequest(events, PersistRequest.Source.KAFKA),
                        opts)
                    .map(m -> m.body()))
        .onSuccess(
            v -> {
              batch.forEach(p -> p.entry().finish());
              meters.ingested(AmberMeters.Path.KAFKA, batch.size());
              progressed();
              maybeResume();
            })
        .onFailure(
            err -> {
              // outcome unknown or failed: the rows are idempotent, so write the same batch again
              // later
              long backoff = backoff(attempt);
              if (attempt == 1 || attempt % 10 == 0) {
                LOG.warn(
                    "write of {} records failed (attempt {}), retrying in {} ms: {}",
                    batch.size(),
                    attempt,
                    backoff,
                    err.getMessage());
              }
              vertx.setTimer(backoff, id -> write(batch, attempt + 1));
            });
  }

  private Future<Void> deadLetter(
      KafkaConsumerRecord<byte[], byte[]> rec, List<FieldError> errors, int attempt) {
    KafkaProducerRecord<byte[], byte[]> dl =
        KafkaProducerRecord.create(cfg.dlqTopic(), rec.key(), rec.value());
    dl.addHeader(DeadLetterHeaders.SOURCE_TOPIC, rec.topic())
        .addHeader(DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(rec.partition()))
        .addHeader(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(rec.offset()))
        .addHeader(DeadLetterHeaders.ERROR_CLASS, DeadLetterHeaders.errorClass(errors))
        .addHeader(DeadLetterHeaders.ERROR_MESSAGE, DeadLetterHeaders.message(errors));
    return deadLetters
        .send(dl)
        .<Void>mapEmpty()
        .recover(
            err -> {
              long backoff = backoff(attempt);
              LOG.warn(
                  "dead-lettering {}-{}@{} failed, retrying in {} ms: {}",
                  rec.topic(),
                  rec.partition(),
                  rec.offset(),
                  backoff,
                  err.toString());
              Promise<Void> p = Promise.promise();
              vertx.setTimer(backoff, id -> deadLetter(rec, errors, attempt + 1).onComplete(p));
              return p.future();
            });
  }

  /** Doubling from 100 ms, capped at kafka.retry.max-backoff. */
  private long backoff(int attempt) {
    return Math.min(cfg.retryMaxBackoff().toMillis(), 100L << Math.min(attempt - 1, 10));
  }

  private Future<Void> commit() {
    Map<TopicPartition, Long> offsets = tracker.toCommit();
    if (offsets.isEmpty()) {
      return Future.succeededFuture();
    }
    Map<TopicPartition, OffsetAndMetadata> toCommit =
        offsets.entrySet().stream()
            .collect(
                Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue(), "")));
    return consumer
        .commit(toCommit)
        .onSuccess(v -> tracker.committed(offsets))
        .onFailure(err -> LOG.warn("offset commit failed (will retry): {}", err.toString()))
        .mapEmpty();
  }

  private void progressed() {
    lastProgress = System.currentTimeMillis();
  }

  /**
   * Lag per assigned partition, and the stall check: records in flight but none finished for too
   * long.
   */
  private void observe() {
    long now = System.currentTimeMillis();
    if (tracker.inFlight() == 0) {
      lastProgress = now;
    }
    health.consumerStalled(now - lastProgress > cfg.stallTimeout().toMillis());
    if (assigned.isEmpty()) {
      return;
    }
    Set<TopicPartition> tps = Set.copyOf(assigned);
    consumer
        .endOffsets(tps)
        .onSuccess(
            ends ->
                ends.forEach(
                    (tp, end) ->
                        consumer
                            .position(tp)
                            .onSuccess(
                                pos ->
                                    meters.consumerLag(
                                        tp.getPartition(), Math.max(0, end - pos)))));
  }

  private void pauseAll() {
    if (!paused && !assigned.isEmpty()) {
      consumer.pause(Set.copyOf(assigned));
    }
    paused = true;
  }

  private void maybeResume() {
    if (paused
        && !stopping
        && !guard.tripped()
        && breaker.state() == CircuitBreakerState.CLOSED
        && tracker.inFlight() <= cfg.maxInFlight() / 2) {
      paused = false;
      if (!assigned.isEmpty()) {
        consumer.resume(Set.copyOf(assigned));
      }
    }
  }
}
