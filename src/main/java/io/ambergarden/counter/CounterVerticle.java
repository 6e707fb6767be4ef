package io.ambergarden.counter;

import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.CountRequest;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ReplicaBatches;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.metrics.LogThrottle;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies counter increments read from the count journal, off the acknowledgement path: the rollup
 * shard owners send each due journal bucket here ({@link CountRequest}). The facts are merged into
 * one delta per cell, then written as counter batches: one partition's updates, or small partitions
 * owned by the same replicas together ({@link ReplicaBatches}, writer.group-* limits), at most
 * counters.max-concurrent-flushes at once.
 *
 * <p>Counter updates are not idempotent: the driver never retries or speculates them (the counter
 * profile). A failed statement is sent again here, a few times with jittered backoff: the journal
 * record is durable and an increment that was not applied would undercount. A timeout is an unknown
 * outcome, so sending it again may count its cells twice; that is counted, and the hourly
 * reconciliation makes the hour exact again.
 */
public final class CounterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CounterVerticle.class);
  private static final int MAX_BATCH_UPDATES = 100;
  private static final int MAX_ATTEMPTS = 5;
  private static final long FIRST_BACKOFF_MILLIS = 100;
  private final LogThrottle failureLogs = new LogThrottle(2, Duration.ofSeconds(1));

  private final AmberConfig config;
  private final AmberConfig.Counters cfg;
  private final MeterRegistry registry;
  private final AmberConfig.Writer writer;
  private final ReplicaLocator replicas;
  private CassandraClient client;
  private CounterStatements cql;
  private MessageConsumer<CountRequest> consumer;
  private long janitorTimer = -1;

  /** Statements waiting for a slot, and how many are in flight. */
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

  private int inFlight;
  private int requestsOpen;
  private Promise<Void> drained;
  private Counter updates;
  private Counter statements;
  private Counter unknownOutcomes;
  private Counter resent;
  private Counter refused;
  private Counter speculative;
  private DistributionSummary requestCells;

  public CounterVerticle(AmberConfig config, MeterRegistry registry, ReplicaLocator replicas) {
    this.config = config;
    this.replicas = replicas;
    this.cfg = config.counters();
    this.writer = config.writer();
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    updates =
        Counter.builder("amber.counter.updates")
            .description("Counter cells updated")
            .register(registry);
    statements =
        Counter.builder("amber.counter.statements")
            .description("Counter statements (batches) sent")
            .register(registry);
    unknownOutcomes =
        Counter.builder("amber.counter.unknown.outcomes")
            .description(
                "Counter updates whose outcome is unknown (timeout): they may or may not have applied")
            .register(registry);
    resent =
        Counter.builder("amber.counter.resent")
            .description(
                "Counter updates sent again after a failure (may count twice after an unknown outcome)")
            .register(registry);
    refused =
        Counter.builder("amber.counter.refused")
            .description("Apply requests refused: another one is still being applied")
            .register(registry);
    speculative = AmberMeters.speculativeExecutions(registry, "counter");
    requestCells =
        DistributionSummary.builder("amber.counter.flush.size")
            .description("Distinct counter cells per apply request")
            .register(registry);
    return CounterStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              janitorTimer =
                  new CounterJanitor()
                      .schedule(
                          vertx,
                          client,
                          cql,
                          config.rollups().shards(),
                          config.events().retention());
              consumer = Addresses.COUNTERS_APPLY.consumer(vertx, this::onRequest);
              return consumer.completion();
            });
  }

  /** Waits for the requests being applied (shutdown must not cut a statement off). */
  @Override
  public Future<?> stop() {
    vertx.cancelTimer(janitorTimer);
    Future<Void> unregistered = consumer == null ? Future.succeededFuture() : consumer.unregister();
    return unregistered.compose(
        v -> {
          if (requestsOpen == 0) {
            return Future.succeededFuture();
          }
          drained = Promise.promise();
          return drained.future();
        });
  }

  private void onRequest(Message<CountRequest> msg) {
    // each shard owner sends one request at a time: more open requests than shards means callers
    // gave up on earlier ones (a bus timeout) and sent them again; refuse rather than queue
    // without bound
    if (requestsOpen >= config.rollups().shards()) {
      refused.increment();
      FailureCode.OVERLOADED.fail(msg, "counter verticle busy: " + requestsOpen + " requests open");
      return;
    }
    List<CounterStatement> plan;
    try {
      CounterCoalescer cells = new CounterCoalescer(config.rollups().shards());
      cells.add(msg.body().facts());
      requestCells.record(cells.pending());
      plan = plan(cells.byPartition());
    } catch (RuntimeException e) {
      LOG.error("count request of {} facts refused: {}", msg.body().facts().size(), e, e);
      FailureCode.INTERNAL.fail(msg, "counter request failed: " + e);
      return;
    }
    requestsOpen++;
    List<Future<?>> writes = new ArrayList<>(plan.size());
    plan.forEach(st -> writes.add(sendWithRetries(st, 1)));
    Future.join(writes)
        .onComplete(
            ar -> {
              requestsOpen--;
              if (ar.succeeded()) {
                msg.reply(msg.body().facts().size());
              } else {
                FailureCode.UNAVAILABLE.fail(
                    msg, "counter write failed: " + ar.cause().getMessage());
              }
              if (drained != null && requestsOpen == 0) {
                drained.tryComplete();
              }
            });
  }

  /** One counter statement and the updates it carries. */
  private record CounterStatement(List<BoundStatement> bound) {}

  /**
   * A partition's updates in batches of at most MAX_BATCH_UPDATES; batches of partitions owned by
   * the same replicas share one counter batch.
   */
  private List<CounterStatement> plan(Map<Object, List<CounterCoalescer.Update>> byPartition) {
    List<CounterStatement> chunks = new ArrayList<>();
    for (List<CounterCoalescer.Update> partitionUpdates : byPartition.values()) {
      for (int i = 0; i < partitionUpdates.size(); i += MAX_BATCH_UPDATES) {
        List<CounterCoalescer.Update> chunk =
            partitionUpdates.subList(i, Math.min(partitionUpdates.size(), i + MAX_BATCH_UPDATES));
        chunks.add(new CounterStatement(chunk.stream().map(this::bind).toList()));
      }
    }
    List<CounterStatement> out = new ArrayList<>();
    for (List<CounterStatement> group :
        ReplicaBatches.group(
            chunks,
            c -> replicas.replicasOf(c.bound().get(0)),
            c -> c.bound().stream().mapToInt(ReplicaLocator::sizeOf).sum(),
            writer.groupMaxPartitions(),
            writer.groupMaxBytes())) {
      out.add(
          group.size() == 1
              ? group.get(0)
              : new CounterStatement(group.stream().flatMap(t -> t.bound().stream()).toList()));
    }
    return out;
  }

  private Future<Void> sendWithRetries(CounterStatement st, int attempt) {
    Promise<Void> done = Promise.promise();
    whenSlotFree(
        () ->
            write(st.bound())
                .onComplete(
                    ar -> {
                      releaseSlot();
                      if (ar.succeeded()) {
                        done.complete();
                        return;
                      }
                      long skipped = failureLogs.tryAcquire();
                      if (skipped != LogThrottle.SUPPRESS) {
                        LOG.warn(
                            "counter statement of {} updates failed (attempt {}; {} more failures not logged): {}",
                            st.bound().size(),
                            attempt,
                            skipped,
                            ar.cause().toString());
                      }
                      if (attempt >= MAX_ATTEMPTS) {
                        done.fail(ar.cause());
                        return;
                      }
                      resent.increment(st.bound().size());
                      vertx.setTimer(
                          backoff(attempt),
                          id -> sendWithRetries(st, attempt + 1).onComplete(done));
                    }));
    return done.future();
  }

  /** Doubling from 100 ms with full jitter, so shard owners that failed together spread out. */
  static long backoff(int attempt) {
    long cap = FIRST_BACKOFF_MILLIS << Math.min(attempt - 1, 6);
    return cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1);
  }

  private void whenSlotFree(Runnable send) {
    if (inFlight < cfg.maxConcurrentFlushes()) {
      inFlight++;
      send.run();
    } else {
      waiting.add(send);
    }
  }

  private void releaseSlot() {
    Runnable next = waiting.poll();
    if (next != null) {
      next.run();
    } else {
      inFlight--;
    }
  }

  private Future<?> write(List<BoundStatement> batch) {
    Statement<?> s =
        batch.size() == 1
            ? batch.get(0)
            : BatchStatement.newInstance(
                BatchType.COUNTER, new ArrayList<BatchableStatement<?>>(batch));
    // never idempotent: the counter profile has no retries and no speculation
    Statement<?> st =
        s.setIdempotent(false).setExecutionProfileName(CassandraClients.COUNTER_PROFILE);
    statements.increment();
    return client
        .execute(st)
        .onSuccess(
            rs -> {
              updates.increment(batch.size());
              // measured rather than assumed: the counter profile must never speculate
              speculative.increment(rs.getExecutionInfo().getSpeculativeExecutionCount());
            })
        .onFailure(
            err -> {
              if (err instanceof WriteTimeoutException || err instanceof DriverTimeoutException) {
                unknownOutcomes.increment(batch.size());
              }
            });
  }

  private BoundStatement bind(CounterCoalescer.Update u) {
    if (u.cell() instanceof CounterCell.StatusHour c) {
      return cql.statusUpdate()
          .bind(
              u.delta(),
              c.day(),
              c.shard(),
              java.time.Instant.ofEpochMilli(c.hour()),
              c.dimension(),
              c.value());
    }
    CounterCell.DeviceHour c = (CounterCell.DeviceHour) u.cell();
    return cql.deviceUpdate()
        .bind(
            u.delta(),
            c.day(),
            c.shard(),
            c.deviceId(),
            java.time.Instant.ofEpochMilli(c.hour()),
            c.name());
  }
}
