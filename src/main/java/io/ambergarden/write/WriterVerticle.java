package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.CountRequest;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.bus.RequestId;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ReplicaBatches;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.rollup.RollupMarks;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes events to the query-first tables with prepared, idempotent statements, bounded concurrency
 * and retry with backoff. Replies only when every row of the request is written, then publishes the
 * events as durable.
 */
public final class WriterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(WriterVerticle.class);

  private final AmberConfig config;
  private final AmberMeters meters;
  private final AmberConfig.Writer cfg;
  private final TimeBuckets buckets;
  private CassandraClient client;
  private StatementLimiter limiter;
  private RowBinder binder;
  private MessageConsumer<PersistRequest> consumer;
  private int inFlightEvents;
  private Map<WritePlan.BucketKey, Boolean> knownTypeBuckets;
  private Map<RollupMarks.Mark, Boolean> writtenMarks;
  private SliceRegistry slices;
  private FleetMembership fleet;
  private final RollupMarks marks;
  private final ReplicaLocator replicas;

  public WriterVerticle(AmberConfig config, AmberMeters meters, ReplicaLocator replicas) {
    this.config = config;
    this.meters = meters;
    this.replicas = replicas;
    this.cfg = config.writer();
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
    this.marks =
        new RollupMarks(
            config.rollups().grace(), config.rollups().markBucket(), config.rollups().shards());
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    limiter = new StatementLimiter(cfg.maxConcurrentStatements());
    int cacheSize = cfg.bucketCacheSize();
    knownTypeBuckets = RequestRows.lruSet(cacheSize);
    writtenMarks = RequestRows.lruSet(cacheSize);
    fleet = new FleetMembership(config.fleet().refresh().toMillis(), config.fleet().cacheSize());
    return WriterStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              binder = new RowBinder(prepared, config, buckets);
              HotBuckets hot =
                  new HotBuckets(
                      buckets.lengthMillis(),
                      config.hot().partitionRows(),
                      config.hot().maxSalts(),
                      cacheSize);
              slices = new SliceRegistry(client, prepared, hot, config);
              consumer = vertx.eventBus().consumer(Addresses.WRITER_PERSIST, this::persist);
              return consumer.completion();
            });
  }

  @Override
  public Future<?> stop() {
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  private void persist(Message<PersistRequest> msg) {
    List<Event> events = msg.body().events();
    int n = events.size();
    if (inFlightEvents + n > cfg.maxInFlightEvents()) {
      FailureCode.OVERLOADED.fail(
          msg, "writer overloaded: " + inFlightEvents + " events in flight");
      return;
    }
    inFlightEvents += n;
    meters.writesInFlight().addAndGet(n);
    long now = System.currentTimeMillis();
    // detail first: a rollup mark or counter increment is written only for events that are stored
    writeAll(events, now)
        .compose(
            v -> {
              // the rows are durable now: the live feed need not wait for the counter window
              vertx
                  .eventBus()
                  .publish(
                      Addresses.EVENTS_DURABLE, new DurableEvents(events, msg.body().source()));
              return Future.join(afterStored(events));
            })
        .onComplete(
            ar -> {
              inFlightEvents -= n;
              meters.writesInFlight().addAndGet(-n);
              if (ar.succeeded()) {
                msg.reply(new PersistResult(n));
              } else {
                Throwable cause = ar.cause();
                boolean invalid = causedBy(cause, QueryValidationException.class);
                LOG.warn(
                    "write of {} events failed (request {}): {}",
                    n,
                    RequestId.of(msg),
                    cause.toString());
                (invalid ? FailureCode.INTERNAL : FailureCode.UNAVAILABLE)
                    .fail(msg, "store write failed: " + cause.getMessage());
              }
            });
  }

  private List<Future<?>> afterStored(List<Event> events) {
    List<Future<?>> out = new ArrayList<>();
    if (config.rollups().enabled()) {
      long now = System.currentTimeMillis();
      List<WriteRow.Single> rows = new ArrayList<>();
      for (RollupMarks.Mark m : marks.of(events, now)) {
        if (!writtenMarks.containsKey(m)) {
          rows.add(
              new WriteRow.Single("mark", binder.mark(m), () -> writtenMarks.put(m, Boolean.TRUE)));
        }
      }
      out.addAll(writeGrouped(rows));
    }
    if (config.counters().enabled()) {
      out.add(
          vertx
              .eventBus()
              .request(
                  Addresses.COUNTERS_INCREMENT,
                  new CountRequest(events),
                  new DeliveryOptions().setSendTimeout(cfg.requestTimeout().toMillis())));
    }
    return out;
  }

  /**
   * Learns the slices of every (device, bucket) of the request first (hot devices), then writes
   * every row; completes when all are written.
   */
  private Future<Void> writeAll(List<Event> events, long now) {
    Set<HotBuckets.Key> keys = new LinkedHashSet<>();
    events.forEach(e -> keys.add(new HotBuckets.Key(e.deviceId(), buckets.bucketOf(e.ts()))));
    return slices
        .states(keys)
        .compose(
            states -> {
              AmberConfig.Cassandra c = config.cassandra();
              WritePlan plan =
                  new WritePlan(
                      events,
                      buckets,
                      config.events(),
                      c.typeSalts(),
                      c.abnormalSalts(),
                      slices.placement(buckets.lengthMillis(), states));
              slices.splitIfHot(states);
              RequestRows rows =
                  new RequestRows(plan, binder, config, states, knownTypeBuckets, fleet, now);
              List<Future<?>> writes = new ArrayList<>();
              rows.batches.forEach(
                  b ->
                      writes.add(
                          write(
                              b.kind(),
                              BatchStatement.newInstance(BatchType.UNLOGGED, b.statements()))));
              writes.addAll(writeGrouped(rows.singles));
              return Future.join(writes)
                  .<Void>mapEmpty()
                  .onFailure(err -> rows.fleetChanges.forEach(fleet::failed));
            });
  }

  /**
   * Single-partition rows grouped by their replicas ({@link ReplicaBatches}); a group of one goes
   * as it is.
   */
  private List<Future<?>> writeGrouped(List<WriteRow.Single> rows) {
    List<Future<?>> writes = new ArrayList<>();
    for (List<WriteRow.Single> group :
        ReplicaBatches.group(
            rows,
            r -> replicas.replicasOf(r.statement()),
            r -> ReplicaLocator.sizeOf(r.statement()),
            cfg.groupMaxPartitions(),
            cfg.groupMaxBytes())) {
      Future<Void> written;
      if (group.size() == 1) {
        written = write(group.get(0).kind(), group.get(0).statement());
      } else {
        List<BatchableStatement<?>> statements = new ArrayList<>(group.size());
        group.forEach(r -> statements.add(r.statement()));
        written = write("grouped", BatchStatement.newInstance(BatchType.UNLOGGED, statements));
      }
      writes.add(written.onSuccess(v -> group.forEach(r -> r.onWritten().run())));
    }
    return writes;
  }

  /**
   * Every write here is idempotent (same key, same cells), so the driver may speculate and we may
   * retry.
   */
  private Future<Void> write(String kind, Statement<?> statement) {
    Statement<?> s = statement.setIdempotent(true);
    Timer latency = meters.writeLatency(kind);
    return withRetry(
        () ->
            limiter
                .submit(
                    () -> {
                      long t0 = System.nanoTime();
                      return client
                          .execute(s)
                          .map(
                              rs -> {
                                latency.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
                                meters.speculativeExecutions(
                                    rs.getExecutionInfo().getSpeculativeExecutionCount());
                                return rs;
                              });
                    })
                .mapEmpty(),
        1);
  }

  private <T> Future<T> withRetry(Supplier<Future<T>> attempt, int attemptNo) {
    return attempt
        .get()
        .recover(
            err -> {
              if (attemptNo >= cfg.retryMaxAttempts()
                  || causedBy(err, QueryValidationException.class)) {
                return Future.failedFuture(err);
              }
              long delay = cfg.retryInitialBackoff().toMillis() << Math.min(attemptNo - 1, 16);
              Promise<T> retried = Promise.promise();
              vertx.setTimer(delay, id -> withRetry(attempt, attemptNo + 1).onComplete(retried));
              return retried.future();
            });
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }
}
