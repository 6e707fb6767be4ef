package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.FieldError;
import io.ambergarden.health.HealthState;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.metrics.LogThrottle;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records that will never be stored: invalid ones and ones the store rejects go to the dead-letter
 * topic before their offset may be committed, cut when too large to send whole. The {@link
 * DeadLetterGuard} stops a flood of them: a tripped guard stops consumption with one log line and
 * readiness false, and nothing past the stuck record is committed.
 *
 * <p>A record none of whose dead letters can be written (the topic refuses even a bare letter, or
 * sends keep failing past the retry timeout) is skipped: it is logged at ERROR with its
 * coordinates, size and SHA-256 (the original stays in its topic until retention), counted in
 * {@code amber.dead.letters.lost}, and its offset may be committed. Stopping instead would make the
 * pod unready for good, and every pod taking the partition after it would stop on the same record.
 */
final class PoisonRecords {
  private static final Logger LOG = LoggerFactory.getLogger(PoisonRecords.class);

  private final DeadLetterWriter letters;
  private final DeadLetterGuard guard;
  private final HealthState health;
  private final AmberMeters meters;
  private final ConsumerMeters consumerMeters;
  private final Runnable stopConsuming;
  private final Runnable progressed;
  private final LogThrottle lostLog = new LogThrottle(5, Duration.ofSeconds(1));
  private int abandoned;
  private boolean tripLogged;

  /**
   * @param stopConsuming pauses every partition, for good
   * @param progressed called when a dead letter finished its record
   */
  PoisonRecords(
      AmberConfig.Kafka cfg,
      DeadLetterWriter letters,
      HealthState health,
      AmberMeters meters,
      ConsumerMeters consumerMeters,
      Runnable stopConsuming,
      Runnable progressed) {
    this.letters = letters;
    this.guard =
        new DeadLetterGuard(cfg.dlqGuardWindow(), cfg.dlqGuardMinSamples(), cfg.dlqGuardMaxRatio());
    this.health = health;
    this.meters = meters;
    this.consumerMeters = consumerMeters;
    this.stopConsuming = stopConsuming;
    this.progressed = progressed;
  }

  /** Consumption has stopped: no record may be taken any more. */
  boolean stopped() {
    return guard.tripped();
  }

  /** Records in flight that will never finish: those met once the guard tripped. */
  int abandoned() {
    return abandoned;
  }

  /** A record that parsed: it counts in the guard's window as good. */
  void parsed() {
    guard.record(false);
  }

  /** A record that is not a valid event. */
  void invalid(ConsumerRecord<byte[], byte[]> rec, OffsetTracker.Entry entry, List<FieldError> e) {
    meters.invalid(AmberMeters.Path.KAFKA);
    if (!flood()) {
      deadLetter(rec, entry, DeadLetterHeaders.errorClass(e), DeadLetterHeaders.message(e));
    } else {
      abandoned++;
    }
  }

  /** A valid record the store refuses to write. */
  void storeRejected(BatchWriter.Pending p, Throwable cause) {
    ConsumerRecord<byte[], byte[]> rec = p.rec();
    if (flood()) {
      abandoned++;
      return;
    }
    LOG.warn(
        "record {}-{}@{} rejected by the store, dead-lettering it: {}",
        rec.topic(),
        rec.partition(),
        rec.offset(),
        cause.getMessage());
    consumerMeters.storeRejected();
    deadLetter(rec, p.entry(), DeadLetterHeaders.STORE_REJECTED, DeadLetterHeaders.message(cause));
  }

  private boolean flood() {
    if (guard.record(true)) {
      trip(String.format("%.0f%% of recent records are poison", guard.ratio() * 100));
      return true;
    }
    return false;
  }

  private void deadLetter(
      ConsumerRecord<byte[], byte[]> rec, OffsetTracker.Entry entry, String cls, String message) {
    boolean wanted = entry.live();
    letters
        .send(rec, entry, cls, message)
        .onSuccess(
            shape -> {
              if (wanted && entry.live()) {
                meters.deadLettered();
                if (shape != DeadLetters.Shape.WHOLE) {
                  consumerMeters.deadLetterCut();
                }
              }
              entry.finish();
              progressed.run();
            })
        .onFailure(err -> lost(rec, entry, err));
  }

  private void lost(ConsumerRecord<byte[], byte[]> rec, OffsetTracker.Entry entry, Throwable err) {
    if (!entry.live()) {
      return;
    }
    consumerMeters.deadLetterLost();
    long skipped = lostLog.tryAcquire();
    if (skipped != LogThrottle.SUPPRESS) {
      byte[] value = rec.value() == null ? new byte[0] : rec.value();
      LOG.error(
          "{}; record skipped (value {} bytes, SHA-256 {}), find it in its topic by these"
              + " coordinates{}",
          err.getMessage(),
          value.length,
          DeadLetters.sha256(value),
          skipped == 0 ? "" : " (" + skipped + " more such lines not logged)");
    }
    entry.finish();
    progressed.run();
  }

  private void trip(String reason) {
    health.deadLetterGuardTripped(true);
    stopConsuming.run();
    if (!tripLogged) {
      tripLogged = true;
      LOG.error(
          "dead-letter guard tripped, consumption stopped and readiness is false: {}. Nothing past"
              + " the unfinished record is committed; fix the cause and restart.",
          reason);
    }
  }
}
