package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.metrics.AmberMeters;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.kafka.client.consumer.KafkaReadStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes amber.events at least once: a record's offset is committed only after it was written or
 * dead-lettered. Records in flight are capped; when the cap is hit or the writer's circuit breaker
 * opens, the assigned partitions are paused (never the poll loop, so max.poll.interval.ms is never
 * exceeded). The jobs around it live next to it: {@link BatchWriter} (write, retry, narrow), {@link
 * PoisonRecords} and {@link DeadLetterWriter} (dead letters and the guard), {@link
 * OffsetCommitter}, {@link GroupMemberConsumer} (rebalances), {@link FlowControl} and {@link
 * LagObserver}.
 */
public final class KafkaIngestVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaIngestVerticle.class);
  private static final long LAG_INTERVAL_MS = 5000;
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  private static final long POLL_FAILURE_LOG_INTERVAL_MS = 60_000;

  private final AmberConfig config;
  private final AmberConfig.Kafka cfg;
  private final RecordDecoder decoder;
  private final HealthState health;
  private final AmberMeters meters;
  private final OffsetTracker<TopicPartition> tracker = new OffsetTracker<>();
  private GroupMemberConsumer member;
  private KafkaReadStream<byte[], byte[]> stream;
  private FlowControl flow;
  private BatchWriter writer;
  private DeadLetterWriter deadLetters;
  private PoisonRecords poison;
  private OffsetCommitter committer;
  private LagObserver lag;
  private ConsumerMeters consumerMeters;
  private List<BatchWriter.Pending> pending = new ArrayList<>();
  private long lingerTimer = -1;
  private long commitTimer = -1;
  private long lagTimer = -1;
  private long lastPoll;
  private StallCheck stall;
  private PollFailures pollFailures;
  private boolean stopping;

  public KafkaIngestVerticle(
      AmberConfig config, EventParser parser, HealthState health, AmberMeters meters) {
    this.config = config;
    this.meters = meters;
    this.cfg = config.kafka();
    this.decoder = new RecordDecoder(parser, config.http().maxBodyBytes());
    this.health = health;
  }

  @Override
  public Future<?> start() {
    Duration apiTimeout = KafkaSettings.consumerApiTimeout(cfg);
    RetryPolicy policy =
        new RetryPolicy(cfg.retryTimeout().toMillis(), cfg.retryMaxBackoff().toMillis());
    consumerMeters = new ConsumerMeters(meters.registry());
    stall = new StallCheck(cfg.stallTimeout().toMillis(), Monotonic.millis());
    pollFailures =
        new PollFailures(
            POLL_TIMEOUT.toMillis(),
            Math.min(5_000, cfg.maxPollInterval().toMillis() / 5),
            POLL_FAILURE_LOG_INTERVAL_MS);
    PartitionHold hold = new PartitionHold();
    member =
        new GroupMemberConsumer(
            KafkaSettings.consumer(cfg), context, ownership(), apiTimeout, hold);
    stream = KafkaReadStream.create(vertx, member);
    // failed calls are reported (once) through their futures: commit, poll
    stream.exceptionHandler(err -> LOG.debug("kafka consumer call failed: {}", err.toString()));
    flow = new FlowControl(hold);
    deadLetters = new DeadLetterWriter(vertx, cfg, policy);
    poison =
        new PoisonRecords(
            cfg, deadLetters, health, meters, consumerMeters, flow::pauseAll, this::progressed);
    committer = new OffsetCommitter(stream, tracker);
    lag = new LagObserver(vertx, cfg, meters, Duration.ofSeconds(5));
    writer =
        new BatchWriter(
            vertx,
            config,
            policy,
            new BatchWriter.Outcomes() {
              @Override
              public void written(List<BatchWriter.Pending> records) {
                records.forEach(p -> p.entry().finish());
                meters.ingested(AmberMeters.Path.KAFKA, records.size());
                progressed();
              }

              @Override
              public void rejected(BatchWriter.Pending p, Throwable cause) {
                poison.storeRejected(p, cause);
              }
            },
            new BatchWriter.Circuit() {
              @Override
              public void opened() {
                LOG.warn(
                    "writes failing: circuit open, pausing {} partitions", flow.assigned().size());
                health.writesBlocked(true);
                flow.pauseAll();
              }

              @Override
              public void halfOpen() {
                maybeResume(); // the held records are the probe
                probeIfIdle();
              }

              @Override
              public void closed() {
                LOG.info("writes recovered: circuit closed");
                health.writesBlocked(false);
                maybeResume();
              }
            });
    health.consumerExpected(true);
    commitTimer = vertx.setPeriodic(cfg.commitInterval().toMillis(), id -> committer.tick());
    lagTimer = vertx.setPeriodic(LAG_INTERVAL_MS, id -> observe());
    return stream.subscribe(Set.of(cfg.topic())).onSuccess(v -> poll());
  }

  /** The event-loop side of rebalances (see {@link GroupMemberConsumer}). */
  private GroupMemberConsumer.Partitions ownership() {
    return new GroupMemberConsumer.Partitions() {
      @Override
      public void assigned(Collection<TopicPartition> tps) {
        health.consumerJoined(true); // also with no partitions: more members than partitions
        if (tps.isEmpty()) {
          return;
        }
        tracker.assign(tps);
        flow.assigned(tps);
        consumerMeters.assigned(tps.size());
        LOG.info("assigned {}", tps);
        maybeResume();
      }

      @Override
      public Map<TopicPartition, Long> revoked(Collection<TopicPartition> tps) {
        consumerMeters.revoked(tps.size());
        return forget(tps);
      }

      @Override
      public void lost(Collection<TopicPartition> tps) {
        consumerMeters.lost(tps.size());
        forget(tps);
      }
    };
  }

  /** Stops work on the partitions: unsent and retried writes of their records are dropped. */
  private Map<TopicPartition, Long> forget(Collection<TopicPartition> tps) {
    flow.revoked(tps);
    pending.removeIf(p -> tps.contains(partitionOf(p.rec())));
    Map<TopicPartition, Long> finished = tracker.revoke(tps);
    maybeResume();
    return finished;
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(commitTimer);
    vertx.cancelTimer(lagTimer);
    flow.pauseAll();
    flush();
    long deadline = Monotonic.millis() + config.writer().requestTimeout().toMillis();
    return drain(deadline)
        .compose(v -> committer.commitNow())
        .eventually(
            () -> {
              member.closing();
              return stream.close();
            })
        .eventually(() -> deadLetters.close())
        .eventually(() -> lag.close());
  }

  /** Waits for in-flight records to finish, except those that never will (a tripped guard). */
  private Future<Void> drain(long deadline) {
    int unfinished = tracker.inFlight() - poison.abandoned();
    if (unfinished <= 0 || Monotonic.millis() >= deadline) {
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
   * Explicit polling: a whole batch per event-loop task. Polling goes on while partitions are
   * paused, which keeps the consumer in its group.
   */
  private void poll() {
    if (stopping) {
      return;
    }
    long now = System.nanoTime();
    if (lastPoll != 0) {
      consumerMeters.pollGap(now - lastPoll);
    }
    lastPoll = now;
    stream
        .poll(POLL_TIMEOUT)
        .onComplete(
            (records, err) -> {
              // the next poll is scheduled whatever happens here: a dead poll loop would leave
              // the group after max.poll.interval.ms
              if (err == null) {
                vertx.runOnContext(v -> poll());
                pollSucceeded();
                records.forEach(this::onRecord);
              } else {
                pollFailed(err);
              }
            });
  }

  private void pollSucceeded() {
    int failures = pollFailures.succeeded();
    if (failures > 0) {
      LOG.info("kafka poll works again after {} failures", failures);
    }
  }

  private void pollFailed(Throwable err) {
    PollFailures.Next next = pollFailures.failed(Monotonic.millis());
    vertx.setTimer(next.delayMillis(), id -> poll());
    if (next.log() && !stopping) {
      LOG.warn(
          "kafka poll failed ({} more failures since the last report), polling again in {} ms: {}",
          next.suppressed(),
          next.delayMillis(),
          err.toString());
    }
  }

  private void onRecord(ConsumerRecord<byte[], byte[]> rec) {
    if (stopping || poison.stopped()) {
      return; // not tracked, so never committed: redelivered after restart
    }
    OffsetTracker.Entry entry = tracker.begin(partitionOf(rec), rec.offset());
    if (entry == null) {
      return;
    }
    EventParser.SingleResult parsed =
        decoder.decode(rec.value() == null ? new byte[0] : rec.value());
    if (!parsed.ok()) {
      poison.invalid(rec, entry, parsed.errors());
    } else {
      poison.parsed();
      pending.add(new BatchWriter.Pending(entry, rec, parsed.event()));
      if (pending.size() >= cfg.writeBatch()) {
        flush();
      } else if (lingerTimer < 0) {
        lingerTimer = vertx.setTimer(cfg.writeLinger().toMillis(), id -> flush());
      }
    }
    if (tracker.inFlight() >= cfg.maxInFlight()) {
      flow.pauseAll();
    }
  }

  private void flush() {
    if (lingerTimer >= 0) {
      vertx.cancelTimer(lingerTimer);
      lingerTimer = -1;
    }
    if (!pending.isEmpty()) {
      List<BatchWriter.Pending> batch = pending;
      pending = new ArrayList<>();
      writer.write(batch);
    }
  }

  private void progressed() {
    stall.progressed(Monotonic.millis());
    maybeResume();
  }

  /** Lag per assigned partition (off the consumer's thread), and the stall check. */
  private void observe() {
    long now = Monotonic.millis();
    if (health.cassandraKnownDown()) {
      stall.storeDown(now);
    }
    boolean stalled = stall.stalled(now, tracker.inFlight());
    if (stalled != consumerMeters.stalled()) {
      LOG.warn(
          stalled
              ? "consumer stalled: work waiting and nothing finished for {} (paused: {})"
              : "consumer progressing again after a stall of more than {} (paused: {})",
          cfg.stallTimeout(),
          flow.paused());
    }
    consumerMeters.stalled(stalled);
    health.consumerStalled(stalled, stall.stuck(now, tracker.inFlight()));
    lag.observe(flow.assigned(), stall::lag);
    maybeResume(); // a safety net: every reason to pause also resumes on its own event
    probeIfIdle();
  }

  /** A half-open circuit with no record to try it with: ask the store. */
  private void probeIfIdle() {
    if (tracker.inFlight() == 0) {
      writer.probe(
          () ->
              health.cassandraKnownDown()
                  ? Future.failedFuture("the store's health probe fails")
                  : Future.succeededFuture());
    }
  }

  private void maybeResume() {
    // a half-open circuit resumes too: the records that come are its probe
    flow.resumeIf(
        !stopping
            && !poison.stopped()
            && !writer.circuitOpen()
            && tracker.inFlight() <= cfg.maxInFlight() / 2);
  }

  private static TopicPartition partitionOf(ConsumerRecord<?, ?> rec) {
    return new TopicPartition(rec.topic(), rec.partition());
  }
}
