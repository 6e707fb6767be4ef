package io.ambergarden.ingest;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.vertx.circuitbreaker.CircuitBreaker;
import io.vertx.circuitbreaker.CircuitBreakerOptions;
import io.vertx.circuitbreaker.CircuitBreakerState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes batches of parsed records through the writer verticle, behind the consumer's circuit
 * breaker, and decides what a failure means with {@link RetryPolicy}: retry the batch, write its
 * records one by one so that the good ones land, or give up on one record (the caller dead-letters
 * it). Records whose partition moved to another instance are dropped before every attempt.
 *
 * <p>The breaker counts only answers that say the store is failing: a rejected statement is the
 * record's fault and an overloaded writer is back-pressure (it is retried with backoff, never given
 * up on), so neither opens the circuit. A half-open circuit is reported, so that the caller lets a
 * probe through: resumed records, or {@link #probe} when none are there to try.
 */
final class BatchWriter {
  private static final Logger LOG = LoggerFactory.getLogger(BatchWriter.class);

  /** A parsed record waiting for its write. */
  record Pending(OffsetTracker.Entry entry, ConsumerRecord<byte[], byte[]> rec, Event event) {}

  /** Where the outcomes go; called on the event loop. */
  interface Outcomes {
    /** The records' rows are durable. */
    void written(List<Pending> records);

    /** The store will not take this record: it must be dead-lettered. */
    void rejected(Pending record, Throwable cause);
  }

  /** The circuit's changes; called on the event loop. */
  interface Circuit {
    /** Writes keep failing: pause consumption. */
    void opened();

    /** The reset timeout passed: the next write (or {@link #probe}) decides. */
    void halfOpen();

    /** A write went through again. */
    void closed();
  }

  private final Vertx vertx;
  private final CircuitBreaker breaker;
  private final RetryPolicy policy;
  private final Outcomes outcomes;
  private final long writeTimeoutMillis;

  /** When a write last succeeded (Monotonic millis), or Monotonic.NEVER. */
  private long lastSuccess = Monotonic.NEVER;

  BatchWriter(
      Vertx vertx, AmberConfig config, RetryPolicy policy, Outcomes outcomes, Circuit circuit) {
    this.vertx = vertx;
    this.policy = policy;
    this.outcomes = outcomes;
    this.writeTimeoutMillis = config.writer().requestTimeout().toMillis();
    AmberConfig.Kafka cfg = config.kafka();
    this.breaker =
        CircuitBreaker.create(
                "amber-kafka-writes",
                vertx,
                new CircuitBreakerOptions()
                    .setMaxFailures(cfg.breakerFailureThreshold())
                    .setResetTimeout(cfg.breakerResetTimeout().toMillis())
                    .setTimeout(-1))
            .openHandler(v -> circuit.opened())
            .halfOpenHandler(v -> circuit.halfOpen())
            .closeHandler(v -> circuit.closed());
  }

  boolean circuitClosed() {
    return breaker.state() == CircuitBreakerState.CLOSED;
  }

  /** Open and not yet waiting for a probe: nothing may be tried. */
  boolean circuitOpen() {
    return breaker.state() == CircuitBreakerState.OPEN;
  }

  /**
   * While the circuit is half-open, lets {@code ping} through as its probe: success closes the
   * circuit, failure opens it for another reset timeout. A no-op in any other state.
   */
  void probe(Supplier<Future<Void>> ping) {
    if (breaker.state() == CircuitBreakerState.HALF_OPEN) {
      breaker.execute(ping).onFailure(err -> LOG.debug("store probe failed: {}", err.toString()));
    }
  }

  /** A batch's id on the bus: where its first record is (many requests' records share a batch). */
  static String requestId(List<Pending> batch) {
    ConsumerRecord<byte[], byte[]> first = batch.get(0).rec();
    return "kafka-" + first.topic() + "-" + first.partition() + "@" + first.offset();
  }

  void write(List<Pending> batch) {
    attempt(batch, Monotonic.NEVER, 1);
  }

  private void attempt(List<Pending> batch, long firstFailure, int attempt) {
    List<Pending> live = batch.stream().filter(p -> p.entry().live()).toList();
    if (live.isEmpty()) {
      return;
    }
    List<Event> events = live.stream().map(Pending::event).toList();
    breaker
        .<Throwable>execute(
            () ->
                Addresses.WRITER_PERSIST
                    .request(
                        vertx,
                        new PersistRequest(events, PersistRequest.Source.KAFKA),
                        requestId(live),
                        writeTimeoutMillis)
                    .map(r -> (Throwable) null)
                    // only a failing store may open the circuit and pause every partition
                    .recover(
                        err ->
                            ErrorClassifier.classify(err) == ErrorClassifier.Kind.TRANSIENT
                                ? Future.failedFuture(err)
                                : Future.succeededFuture(err)))
        .onComplete(
            (rejection, failure) -> {
              Throwable err = failure != null ? failure : rejection;
              if (err == null) {
                lastSuccess = Monotonic.millis();
                outcomes.written(live);
              } else {
                failed(live, err, firstFailure, attempt);
              }
            });
  }

  private void failed(List<Pending> live, Throwable err, long firstFailure, int attempt) {
    long now = Monotonic.millis();
    long first = firstFailure == Monotonic.NEVER ? now : firstFailure;
    ErrorClassifier.Kind kind = ErrorClassifier.classify(err);
    RetryPolicy.Decision d = policy.decide(kind, live.size(), attempt, first, lastSuccess, now);
    switch (d.action()) {
      case RETRY -> {
        if (attempt == 1 || attempt % 10 == 0) {
          LOG.warn(
              "write of {} records failed ({}, attempt {}), retrying in {} ms: {}",
              live.size(),
              kind,
              attempt,
              d.delayMillis(),
              err.getMessage());
        }
        vertx.setTimer(d.delayMillis(), id -> attempt(live, first, attempt + 1));
      }
      case SPLIT -> {
        LOG.warn(
            "write of {} records failed ({}): writing them one by one to find the rejected ones: {}",
            live.size(),
            kind,
            err.getMessage());
        live.forEach(p -> attempt(List.of(p), first, 1));
      }
      case REJECT -> outcomes.rejected(live.get(0), err);
    }
  }
}
