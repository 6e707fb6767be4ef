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
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies counter increments. Increments wait in a bounded {@link CounterCoalescer} for at most
 * counters.flush-interval, then go out as counter batches: one partition's updates, or small
 * partitions owned by the same replicas together ({@link ReplicaBatches}, writer.group-* limits). A
 * request is answered when every cell of its events is written. {@link CounterLedger} makes an
 * event count once when it is asked for again (a retry after an event-bus timeout, a redelivery):
 * pending cells are waited for, applied ones are not sent again. Counter updates are not
 * idempotent: the driver never retries or speculates them (the counter profile), and a timeout is
 * an unknown outcome, counted; its cells may be sent again by the source's retry.
 */
public final class CounterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CounterVerticle.class);
  private static final int MAX_BATCH_UPDATES = 100;
  private final LogThrottle failureLogs = new LogThrottle(2, Duration.ofSeconds(1));

  private final AmberConfig config;
  private final AmberConfig.Counters cfg;
  private final MeterRegistry registry;
  private final AmberConfig.Writer writer;
  private CassandraClient client;
  private final ReplicaLocator replicas;
  private CounterCoalescer coalescer;
  private CounterLedger<Message<CountRequest>> ledger;
  private CounterStatements cql;
  private MessageConsumer<CountRequest> consumer;
  private long flushTimer = -1;
  private long janitorTimer = -1;
  private int flushesInFlight;
  private Promise<Void> drained;
  private Counter updates;
  private Counter statements;
  private Counter unknownOutcomes;
  private Counter refused;
  private Counter speculative;
  private DistributionSummary flushSize;

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
    coalescer = new CounterCoalescer(cfg.coalesce(), cfg.maxPendingCells());
    ledger = new CounterLedger<>(coalescer, cfg.dedupWindow(), cfg.maxOpenEvents());
    FunctionCounter.builder("amber.counter.duplicates", ledger, CounterLedger::duplicates)
        .description(
            "Events whose increments were not sent again: already applied (in the window) or pending")
        .register(registry);
    Gauge.builder("amber.counter.open.events", ledger, CounterLedger::openEvents)
        .description("Events whose increments are pending or partly applied")
        .register(registry);
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
    refused =
        Counter.builder("amber.counter.refused")
            .description("Count requests refused: pending cells at the limit")
            .register(registry);
    speculative = AmberMeters.speculativeExecutions(registry, "counter");
    flushSize =
        DistributionSummary.builder("amber.counter.flush.size")
            .description("Counter updates per flush")
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
                          cql.deleteDay(),
                          cfg.shards(),
                          config.events().retention());
              consumer = vertx.eventBus().consumer(Addresses.COUNTERS_INCREMENT, this::onRequest);
              return consumer.completion();
            });
  }

  /**
   * Flushes what is pending and waits for every flush in flight (shutdown must not drop
   * increments).
   */
  @Override
  public Future<?> stop() {
    vertx.cancelTimer(janitorTimer);
    Future<Void> unregistered = consumer == null ? Future.succeededFuture() : consumer.unregister();
    return unregistered.compose(
        v -> {
          flush();
          if (flushesInFlight == 0 && coalescer.pending() == 0) {
            return Future.succeededFuture();
          }
          drained = Promise.promise();
          return drained.future();
        });
  }

  private void onRequest(Message<CountRequest> msg) {
    CounterLedger.Admission admission;
    try {
      admission = ledger.admit(msg, msg.body().events(), e -> CounterCells.of(e, cfg.shards()));
    } catch (RuntimeException e) {
      // nothing was taken (admission is all or nothing); answer rather than let the caller time out
      LOG.error("count request of {} events refused: {}", msg.body().events().size(), e, e);
      FailureCode.INTERNAL.fail(msg, "counter request failed: " + e);
      return;
    }
    switch (admission) {
      case DONE -> msg.reply(msg.body().events().size());
      case REFUSED -> {
        refused.increment();
        FailureCode.OVERLOADED.fail(
            msg,
            "counter buffer full ("
                + coalescer.pending()
                + " pending cells, "
                + ledger.openEvents()
                + " open events)");
      }
      case WAITING -> {
        if (coalescer.pending() >= cfg.flushMaxCells()
            || cfg.flushInterval().isZero()
            || !cfg.coalesce()) {
          flush();
        } else {
          armFlushTimer();
        }
      }
    }
  }

  /** Starts the coalescing window unless one is already running. */
  private void armFlushTimer() {
    if (flushTimer < 0) {
      flushTimer =
          vertx.setTimer(
              cfg.flushInterval().toMillis(),
              id -> {
                flushTimer = -1;
                flush();
              });
    }
  }

  private void flush() {
    if (flushTimer >= 0) {
      vertx.cancelTimer(flushTimer);
      flushTimer = -1;
    }
    if (coalescer.pending() == 0) {
      return;
    }
    if (flushesInFlight >= cfg.maxConcurrentFlushes()) {
      return; // retried when a flush completes; pending stays bounded by max-pending-cells
    }
    Map<Object, List<CounterLedger.Tracked>> byPartition = ledger.drain();
    List<Future<?>> writes = new ArrayList<>();
    try {
      plan(byPartition).forEach(st -> writes.add(send(st)));
    } catch (RuntimeException e) {
      // a statement that cannot be built is a failed write for every cell it carried
      LOG.error("counter flush could not be built: {}", e.toString(), e);
      byPartition.values().forEach(t -> answer(ledger.settle(t, false)));
      return;
    }
    flushesInFlight++;
    Future.join(writes)
        .onComplete(
            ar -> {
              flushesInFlight--;
              if (coalescer.pending() > 0
                  && (coalescer.pending() >= cfg.flushMaxCells() || drained != null)) {
                flush();
              } else if (coalescer.pending() > 0) {
                armFlushTimer();
              }
              if (drained != null && flushesInFlight == 0 && coalescer.pending() == 0) {
                drained.tryComplete();
              }
            });
  }

  /** One counter statement: its bound updates and the event cells they carry. */
  private record CounterStatement(
      List<CounterLedger.Tracked> updates, List<BoundStatement> bound) {}

  /**
   * A partition's updates in batches of at most MAX_BATCH_UPDATES (or one by one without
   * coalescing); batches of partitions owned by the same replicas share one counter batch.
   */
  private List<CounterStatement> plan(Map<Object, List<CounterLedger.Tracked>> byPartition) {
    List<CounterStatement> chunks = new ArrayList<>();
    List<CounterStatement> out = new ArrayList<>();
    int total = 0;
    for (List<CounterLedger.Tracked> partitionUpdates : byPartition.values()) {
      total += partitionUpdates.size();
      int step = cfg.coalesce() ? MAX_BATCH_UPDATES : 1;
      for (int i = 0; i < partitionUpdates.size(); i += step) {
        List<CounterLedger.Tracked> chunk =
            partitionUpdates.subList(i, Math.min(partitionUpdates.size(), i + step));
        CounterStatement t =
            new CounterStatement(chunk, chunk.stream().map(u -> bind(u.update())).toList());
        (cfg.coalesce() ? chunks : out).add(t);
      }
    }
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
    flushSize.record(total);
    return out;
  }

  /** Each statement settles its own cells: a failure elsewhere in the flush does not touch them. */
  private Future<?> send(CounterStatement st) {
    return write(st.bound())
        .onComplete(
            ar -> {
              long skipped = ar.failed() ? failureLogs.tryAcquire() : LogThrottle.SUPPRESS;
              if (skipped != LogThrottle.SUPPRESS) {
                LOG.warn(
                    "counter statement of {} updates failed ({} more failures not logged): {}",
                    st.bound().size(),
                    skipped,
                    ar.cause().toString());
              }
              answer(ledger.settle(st.updates(), ar.succeeded()));
            });
  }

  private void answer(CounterLedger.Outcome<Message<CountRequest>> outcome) {
    outcome.succeeded().forEach(m -> m.reply(m.body().events().size()));
    outcome
        .failed()
        .forEach(
            m ->
                FailureCode.UNAVAILABLE.fail(
                    m, "counter write failed; the increments not applied may be sent again"));
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
    if (u.cell() instanceof CounterCell.Day d) {
      return cql.dayUpdate().bind(u.delta(), d.day(), d.shard(), d.dimension(), d.value());
    }
    CounterCell.Device d = (CounterCell.Device) u.cell();
    return cql.deviceUpdate().bind(u.delta(), d.deviceId(), d.name());
  }
}
