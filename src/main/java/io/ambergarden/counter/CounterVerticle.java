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
import io.ambergarden.event.Event;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies counter increments. Increments wait in a bounded {@link CounterCoalescer} for at most
 * counters.flush-interval, then go out as counter batches: one partition's updates, or small
 * partitions owned by the same replicas together ({@link ReplicaBatches}, writer.group-* limits). A
 * request is answered when the flush holding its increments is written. Counter updates are not
 * idempotent: the driver never retries or speculates them (the counter profile), and a timeout is
 * an unknown outcome, counted.
 */
public final class CounterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CounterVerticle.class);
  private static final int MAX_BATCH_UPDATES = 100;

  private final AmberConfig config;
  private final AmberConfig.Counters cfg;
  private final MeterRegistry registry;
  private final AmberConfig.Writer writer;
  private CassandraClient client;
  private final ReplicaLocator replicas;
  private CounterCoalescer coalescer;
  private List<Message<CountRequest>> waiting = new ArrayList<>();
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
    List<CounterCell> cells = new ArrayList<>();
    for (Event e : msg.body().events()) {
      cells.addAll(CounterCells.of(e, cfg.shards()));
    }
    if (!coalescer.add(cells)) {
      refused.increment();
      FailureCode.OVERLOADED.fail(
          msg, "counter buffer full (" + coalescer.pending() + " pending cells)");
      return;
    }
    waiting.add(msg);
    if (coalescer.pending() >= cfg.flushMaxCells()
        || cfg.flushInterval().isZero()
        || !cfg.coalesce()) {
      flush();
    } else {
      armFlushTimer();
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
    List<Message<CountRequest>> answer = waiting;
    waiting = new ArrayList<>();
    Map<Object, List<CounterCoalescer.Update>> byPartition = coalescer.drain();
    List<Future<?>> writes = new ArrayList<>();
    List<List<BoundStatement>> chunks = new ArrayList<>();
    int total = 0;
    for (List<CounterCoalescer.Update> partitionUpdates : byPartition.values()) {
      total += partitionUpdates.size();
      if (cfg.coalesce()) {
        for (int i = 0; i < partitionUpdates.size(); i += MAX_BATCH_UPDATES) {
          chunks.add(
              partitionUpdates
                  .subList(i, Math.min(partitionUpdates.size(), i + MAX_BATCH_UPDATES))
                  .stream()
                  .map(this::bind)
                  .toList());
        }
      } else {
        partitionUpdates.forEach(u -> writes.add(write(List.of(bind(u)))));
      }
    }
    // chunks of different partitions owned by the same replicas share one counter batch
    for (List<List<BoundStatement>> group :
        ReplicaBatches.group(
            chunks,
            c -> replicas.replicasOf(c.get(0)),
            c -> c.stream().mapToInt(ReplicaLocator::sizeOf).sum(),
            writer.groupMaxPartitions(),
            writer.groupMaxBytes())) {
      writes.add(
          write(group.size() == 1 ? group.get(0) : group.stream().flatMap(List::stream).toList()));
    }
    flushSize.record(total);
    flushesInFlight++;
    Future.join(writes)
        .onComplete(
            ar -> {
              flushesInFlight--;
              if (ar.succeeded()) {
                answer.forEach(m -> m.reply(m.body().events().size()));
              } else {
                LOG.warn(
                    "counter flush of {} updates failed: {}",
                    byPartition.size(),
                    ar.cause().toString());
                answer.forEach(
                    m ->
                        FailureCode.UNAVAILABLE.fail(
                            m, "counter write failed: " + ar.cause().getMessage()));
              }
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
        .onSuccess(rs -> updates.increment(batch.size()))
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
