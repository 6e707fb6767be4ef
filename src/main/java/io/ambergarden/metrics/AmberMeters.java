package io.ambergarden.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The service's own amber.* meters, created once per process and shared by the verticles (meters
 * are thread-safe). Tags are low-cardinality by construction: path, statement kind, partition
 * number.
 */
public final class AmberMeters {
  public enum Path {
    HTTP,
    KAFKA
  }

  private final MeterRegistry registry;
  private final Counter httpEvents;
  private final Counter kafkaEvents;
  private final Counter httpInvalid;
  private final Counter kafkaInvalid;
  private final Counter deadLetters;
  private final Counter speculativeWrites;
  private final ReadMeters reads;
  private final Counter speculativeCounters;
  private final Counter unsentWriteRetries;
  private final AtomicInteger writesInFlight = new AtomicInteger();
  private final List<IntSupplier> statementCaps = new CopyOnWriteArrayList<>();
  private final List<IntSupplier> statementsWaiting = new CopyOnWriteArrayList<>();
  private final Map<String, Timer> writeTimers = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> writeRows = new ConcurrentHashMap<>();
  private final Map<String, Counter> writeFailures = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicLong> lagByPartition = new ConcurrentHashMap<>();
  private final String lagTopic;

  public AmberMeters(MeterRegistry registry, String inputTopic) {
    this.registry = registry;
    this.lagTopic = inputTopic;
    httpEvents = ingest(Path.HTTP);
    kafkaEvents = ingest(Path.KAFKA);
    httpInvalid = invalidCounter(Path.HTTP);
    kafkaInvalid = invalidCounter(Path.KAFKA);
    deadLetters =
        Counter.builder("amber.dead.letters")
            .description("Records sent to the dead-letter topic")
            .register(registry);
    speculativeWrites = speculativeCounter("write");
    reads = new ReadMeters(registry);
    speculativeCounters = speculativeCounter("counter");
    unsentWriteRetries =
        counter(
            registry,
            "amber.write.unsent.retries",
            "Write attempts retried beyond writer.retry.max-attempts because no node had a"
                + " connection for them (nothing was sent)");
    Gauge.builder("amber.writes.in.flight", writesInFlight, AtomicInteger::get)
        .description("Events being written by the writer verticles")
        .register(registry);
    Gauge.builder("amber.writer.statement.limit", statementCaps, AmberMeters::sum)
        .description(
            "Statements the writer verticles may have at the driver now (fixed or adaptive)")
        .register(registry);
    Gauge.builder("amber.writer.statements.waiting", statementsWaiting, AmberMeters::sum)
        .description("Statements waiting for the writer's limit")
        .register(registry);
    // exported from the start, so an alert on failures has a series before the first one
    for (String kind :
        java.util.List.of("detail", "by_type", "grouped", "latest", "bucket", "abnormal", "mark")) {
      failureCounter(kind);
    }
  }

  private Counter speculativeCounter(String statement) {
    return speculativeExecutions(registry, statement);
  }

  /** A counter without tags, registered (or found, when already registered) under {@code name}. */
  public static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  /**
   * amber.cassandra.speculative.executions of one statement kind (write, read, counter); counter
   * updates are never idempotent, so theirs must stay at 0.
   */
  public static Counter speculativeExecutions(MeterRegistry registry, String statement) {
    return Counter.builder("amber.cassandra.speculative.executions")
        .tag("statement", statement)
        .description(
            "Speculative executions the driver started, by statement kind (write, read, counter)")
        .register(registry);
  }

  private Counter ingest(Path p) {
    return Counter.builder("amber.ingest.events")
        .tag("path", p.name().toLowerCase())
        .description("Events accepted (HTTP: acknowledged; Kafka: written)")
        .register(registry);
  }

  private Counter invalidCounter(Path p) {
    return Counter.builder("amber.validation.failures")
        .tag("path", p.name().toLowerCase())
        .description("Requests (HTTP) or records (Kafka) rejected by validation")
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void ingested(Path p, int events) {
    (p == Path.HTTP ? httpEvents : kafkaEvents).increment(events);
  }

  public void invalid(Path p) {
    (p == Path.HTTP ? httpInvalid : kafkaInvalid).increment();
  }

  public void deadLettered() {
    deadLetters.increment();
  }

  /** Speculative executions of a write (detail, index, latest, mark rows). */
  public void speculativeExecutions(int n) {
    if (n > 0) {
      speculativeWrites.increment(n);
    }
  }

  /** The read path's meters: speculative executions and latency per stage. */
  public ReadMeters reads() {
    return reads;
  }

  /** Speculative executions of a counter update: the counter profile allows none. */
  public void speculativeCounterUpdates(int n) {
    if (n > 0) {
      speculativeCounters.increment(n);
    }
  }

  /** Adds one writer's statement limit and queue to the writer gauges (summed over instances). */
  public void writeLimiter(IntSupplier cap, IntSupplier waiting) {
    statementCaps.add(cap);
    statementsWaiting.add(waiting);
  }

  private static double sum(List<IntSupplier> values) {
    double sum = 0;
    for (IntSupplier v : values) {
      sum += v.getAsInt();
    }
    return sum;
  }

  public AtomicInteger writesInFlight() {
    return writesInFlight;
  }

  /**
   * Latency of one statement kind (detail, latest, by_type, abnormal, bucket, mark), with a
   * histogram.
   */
  public Timer writeLatency(String kind) {
    return writeTimers.computeIfAbsent(
        kind,
        k ->
            Timer.builder("amber.write.latency")
                .tag("kind", k)
                .description("Latency of write statements by kind")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry));
  }

  /**
   * Rows per write statement of one kind: a batch's statements, 1 for a single one. Shows the
   * replica-group batches the writer really sends.
   */
  public DistributionSummary writeStatementRows(String kind) {
    return writeRows.computeIfAbsent(
        kind,
        k ->
            DistributionSummary.builder("amber.write.statement.rows")
                .tag("kind", k)
                .description("Rows per write statement (a batch's statements), by kind")
                .register(registry));
  }

  /**
   * A write of one statement kind that failed after its retries (the request then fails: 503 or a
   * Kafka retry).
   */
  public void writeFailed(String kind) {
    failureCounter(kind).increment();
  }

  /** A write retried past its attempts because the driver had no connection to send it on. */
  public void unsentWriteRetried() {
    unsentWriteRetries.increment();
  }

  private Counter failureCounter(String kind) {
    return writeFailures.computeIfAbsent(
        kind,
        k ->
            Counter.builder("amber.write.failures")
                .tag("kind", k)
                .description("Write statements that failed after their retries, by kind")
                .register(registry));
  }

  /** Sets the consumer lag of one input partition; the gauge is created on first use. */
  public void consumerLag(int partition, long lag) {
    lagByPartition
        .computeIfAbsent(
            partition,
            p -> {
              AtomicLong v = new AtomicLong();
              Gauge.builder("amber.kafka.consumer.lag", v, AtomicLong::get)
                  .tag("topic", lagTopic)
                  .tag("partition", Integer.toString(p))
                  .description("Records behind the end of the input partition")
                  .register(registry);
              return v;
            })
        .set(lag);
  }
}
