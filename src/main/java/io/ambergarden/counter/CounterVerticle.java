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
import io.ambergarden.metrics.LogThrottle;
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
import java.util.function.Supplier;
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
 * reconciliation makes the hour exact again. A request that still fails leaves its part's remainder
 * here ({@link AppliedParts}): the scan's next try applies only that, never the statements that
 * succeeded.
 */
public final class CounterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CounterVerticle.class);
  private static final int MAX_BATCH_UPDATES = 100;
  private static final int MAX_ATTEMPTS = 5;
  private static final long FIRST_BACKOFF_MILLIS = 100;

  /**
   * Parts remembered as applied: a few scans' worth for every shard (a part is sent again only by
   * the scan after its failure).
   */
  private static final int MAX_PARTS_DONE = 16_384;

  /** Parts remembered with a remainder, each at most counters.max-pending-cells updates. */
  private static final int MAX_PARTS_WITH_REMAINDERS = 256;

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

  /** Journal parts applied, or applied in part, by this process (bounded). */
  private final AppliedParts parts = new AppliedParts(MAX_PARTS_DONE, MAX_PARTS_WITH_REMAINDERS);

  /** Statements waiting for a slot, and how many are in flight. */
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

  private int inFlight;
  private int requestsOpen;
  private Promise<Void> drained;
  private CounterMeters meters;

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
    meters = new CounterMeters(registry);
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
      meters.refused.increment();
      FailureCode.OVERLOADED.fail(msg, "counter verticle busy: " + requestsOpen + " requests open");
      return;
    }
    CountRequest req = msg.body();
    String part = req.part();
    List<CounterCoalescer.Update> updates;
    List<CounterStatement> plan;
    try {
      Supplier<List<CounterCoalescer.Update>> all =
          () -> new CounterCoalescer(config.rollups().shards()).add(req.facts()).updates();
      if (part == null) {
        updates = all.get();
      } else {
        AppliedParts.Start start = parts.start(part, all);
        if (start instanceof AppliedParts.Done) {
          meters.alreadyApplied.increment();
          msg.reply(req.facts().size());
          return;
        }
        if (start instanceof AppliedParts.InProgress) {
          meters.refused.increment();
          FailureCode.OVERLOADED.fail(msg, "journal part " + part + " is still being applied");
          return;
        }
        updates = ((AppliedParts.Apply) start).updates();
      }
      plan = plan(CounterCoalescer.byPartition(updates));
    } catch (RuntimeException e) {
      if (part != null) {
        parts.abandon(part);
      }
      LOG.error("count request of {} facts refused: {}", req.facts().size(), e, e);
      FailureCode.INTERNAL.fail(msg, "counter request failed: " + e);
      return;
    }
    meters.requestCells.record(updates.size());
    requestsOpen++;
    List<Future<?>> writes = new ArrayList<>(plan.size());
    List<CounterCoalescer.Update> notApplied = new ArrayList<>();
    plan.forEach(
        st -> writes.add(sendWithRetries(st, 1).onFailure(err -> notApplied.addAll(st.updates()))));
    Future.join(writes)
        .onComplete(
            ar -> {
              requestsOpen--;
              if (part != null) {
                parts.finish(part, notApplied);
              }
              if (ar.succeeded()) {
                msg.reply(req.facts().size());
              } else {
                FailureCode.UNAVAILABLE.fail(
                    msg,
                    "counter write failed ("
                        + notApplied.size()
                        + " of "
                        + updates.size()
                        + " updates not applied): "
                        + ar.cause().getMessage());
              }
              if (drained != null && requestsOpen == 0) {
                drained.tryComplete();
              }
            });
  }

  /** One counter statement: the updates it carries, bound. */
  private record CounterStatement(
      List<CounterCoalescer.Update> updates, List<BoundStatement> bound) {}

  /**
   * A partition's updates in batches of at most MAX_BATCH_UPDATES; batches of partitions owned by
   * the same replicas share one counter batch.
   */
  private List<CounterStatement> plan(Map<Object, List<CounterCoalescer.Update>> byPartition) {
    List<CounterStatement> chunks = new ArrayList<>();
    for (List<CounterCoalescer.Update> partitionUpdates : byPartition.values()) {
      for (int i = 0; i < partitionUpdates.size(); i += MAX_BATCH_UPDATES) {
        List<CounterCoalescer.Update> chunk =
            List.copyOf(
                partitionUpdates.subList(
                    i, Math.min(partitionUpdates.size(), i + MAX_BATCH_UPDATES)));
        chunks.add(new CounterStatement(chunk, chunk.stream().map(this::bind).toList()));
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
              : new CounterStatement(
                  group.stream().flatMap(t -> t.updates().stream()).toList(),
                  group.stream().flatMap(t -> t.bound().stream()).toList()));
    }
    return out;
  }

  private Future<Void> sendWithRetries(CounterStatement st, int attempt) {
    Promise<Void> done = Promise.promise();
    whenSlotFree(
        () ->
            write(st)
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
                      meters.resent.increment(st.bound().size());
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

  private Future<?> write(CounterStatement planned) {
    List<BoundStatement> batch = planned.bound();
    Statement<?> s =
        batch.size() == 1
            ? batch.get(0)
            : BatchStatement.newInstance(
                BatchType.COUNTER, new ArrayList<BatchableStatement<?>>(batch));
    // never idempotent: the counter profile has no retries and no speculation
    Statement<?> st =
        s.setIdempotent(false).setExecutionProfileName(CassandraClients.COUNTER_PROFILE);
    meters.statements.increment();
    return client
        .execute(st)
        .onSuccess(
            rs -> {
              meters.updates.increment(batch.size());
              // measured rather than assumed: the counter profile must never speculate
              meters.speculative.increment(rs.getExecutionInfo().getSpeculativeExecutionCount());
            })
        .onFailure(
            err -> {
              if (err instanceof WriteTimeoutException || err instanceof DriverTimeoutException) {
                meters.unknownOutcome(planned.updates());
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
