package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.CountFacts;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.bus.RequestId;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.Causes;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.cassandra.ReplicaBatches;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.cassandra.StatementRejections;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.metrics.LogThrottle;
import io.ambergarden.rollup.RollupMarks;
import io.micrometer.core.instrument.Counter;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes events to the query-first tables with prepared, idempotent statements, bounded concurrency
 * and retry with backoff. Replies only when every row of the request is written, then publishes the
 * events as durable.
 */
public final class WriterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(WriterVerticle.class);

  /** During an outage every request fails the same way: a few lines a second say enough. */
  private final LogThrottle failureLogs = new LogThrottle(2, java.time.Duration.ofSeconds(1));

  private final AmberConfig config;
  private final AmberMeters meters;
  private final AmberConfig.Writer cfg;
  private final TimeBuckets buckets;
  private CassandraClient client;
  private StatementWriter statements;
  private RowBinder binder;
  private MessageConsumer<PersistRequest> consumer;
  private int inFlightEvents;
  private Map<WritePlan.BucketKey, Boolean> knownTypeBuckets;
  private Map<RollupMarks.Mark, Boolean> writtenMarks;
  private SliceRegistry slices;
  private FleetMembership fleet;
  private final RollupMarks marks;
  private final ReplicaLocator replicas;
  private Counter journaledEvents;

  public WriterVerticle(AmberConfig config, AmberMeters meters, ReplicaLocator replicas) {
    this.config = config;
    this.meters = meters;
    this.replicas = replicas;
    this.cfg = config.writer();
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
    this.marks = RollupMarks.of(config.rollups());
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    journaledEvents =
        Counter.builder("amber.counter.journal.events")
            .description(
                "Events whose count record was sent (the counters' upper bound before reconciliation)")
            .register(meters.registry());
    StatementLimiter limiter = WriteLimits.limiter(cfg, System::nanoTime);
    meters.writeLimiter(limiter::cap, limiter::waiting);
    statements = new StatementWriter(vertx, client, limiter, meters, cfg);
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
              consumer = Addresses.WRITER_PERSIST.consumer(vertx, this::persist);
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
    long now = ClusterClock.shared().millis();
    Future<Void> detail;
    try {
      detail = writeAll(events, now);
    } catch (RuntimeException e) {
      // a bug or an event no row can hold: give the capacity back and answer now, not by timeout
      detail = Future.failedFuture(new PlanException(e));
    }
    // detail first: a rollup mark or count record is written only for events that are stored
    detail
        .compose(
            v -> {
              // the rows are durable now: the live feed need not wait for the marks
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
                boolean invalid =
                    StatementRejections.rejected(cause)
                        || Causes.find(cause, PlanException.class) != null;
                long skipped = invalid ? 0 : failureLogs.tryAcquire();
                if (skipped != LogThrottle.SUPPRESS) {
                  LOG.warn(
                      "write of {} events failed (request {}; {} similar failures not logged): {}",
                      n,
                      RequestId.of(msg),
                      skipped,
                      cause.toString());
                }
                (invalid ? FailureCode.INTERNAL : FailureCode.UNAVAILABLE)
                    .fail(msg, "store write failed: " + cause.getMessage());
              }
            });
  }

  /**
   * After the detail rows: the rollup marks, and the durable count record (the counters are applied
   * from it later, off this path). A late event's mark is followed by its reopened-hour rows, filed
   * under the bucket the mark was written in, so the recompute of that bucket is what closes them.
   */
  private List<Future<?>> afterStored(List<Event> events) {
    List<Future<?>> out = new ArrayList<>();
    long now = ClusterClock.shared().millis();
    if (config.rollups().enabled()) {
      boolean reopen = config.counters().enabled() && config.counters().reconcile();
      List<WriteRow.Single> rows = new ArrayList<>();
      List<RollupMarks.Mark> lateWritten = new ArrayList<>();
      for (RollupMarks.Mark m : marks.of(events, now)) {
        if (writtenMarks.containsKey(m)) {
          continue;
        }
        // filed under the time each attempt is sent, so a retried mark never lands in a bucket
        // the rollup already read (see RollupMarks.stampedAt)
        rows.add(
            new WriteRow.Single(
                "mark",
                binder.mark(m),
                at -> binder.mark(marks.stampedAt(m, at)),
                at -> {
                  RollupMarks.Mark stamped = marks.stampedAt(m, at);
                  // filed after its hour's on-time bucket: that recompute may have run already
                  if (reopen && marks.filedLate(stamped)) {
                    lateWritten.add(stamped);
                  } else {
                    writtenMarks.put(stamped, Boolean.TRUE);
                  }
                }));
      }
      out.add(Future.join(writeGrouped(rows)).compose(v -> reopen(lateWritten)));
    }
    if (config.counters().enabled()) {
      out.add(journal(events));
    }
    return out;
  }

  /**
   * The reopened-hour rows of late marks; a mark counts as written (and is not written again) only
   * once they are.
   */
  private Future<?> reopen(List<RollupMarks.Mark> stamped) {
    if (stamped.isEmpty()) {
      return Future.succeededFuture();
    }
    List<WriteRow.Single> rows = new ArrayList<>();
    for (RollupMarks.Mark m : stamped) {
      rows.add(new WriteRow.Single("reopened", binder.deviceReopened(m)));
      rows.add(new WriteRow.Single("reopened", binder.shardReopened(m)));
    }
    return Future.join(writeGrouped(rows))
        .onSuccess(v -> stamped.forEach(m -> writtenMarks.put(m, Boolean.TRUE)));
  }

  /** The request's count record, idempotent: one entry id however often it is sent. */
  private Future<?> journal(List<Event> events) {
    // what the counters may count at most: every event a count record was sent for
    journaledEvents.increment(events.size());
    ByteBuffer facts = CountFacts.encode(CountFacts.of(events));
    int shard = ThreadLocalRandom.current().nextInt(config.rollups().shards());
    UUID entry = Uuids.timeBased();
    return write("journal", at -> binder.countJournal(shard, marks.bucketOf(at), entry, facts));
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
              RequestRows rows;
              try {
                rows = plan(events, states, now);
              } catch (RuntimeException e) {
                // a bug or an event no row can hold: answered now, not after retries
                return Future.failedFuture(new PlanException(e));
              }
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
                  .onSuccess(v -> rows.fleetChanges.forEach(fleet::stored))
                  .onFailure(err -> rows.fleetChanges.forEach(fleet::failed));
            });
  }

  private RequestRows plan(
      List<Event> events, Map<HotBuckets.Key, HotBuckets.State> states, long now) {
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
    return new RequestRows(plan, binder, config, states, knownTypeBuckets, fleet, now);
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
      Future<Long> written;
      if (group.size() == 1) {
        written = write(group.get(0).kind(), at -> group.get(0).rebind().apply(at));
      } else {
        written =
            write(
                "grouped",
                at -> {
                  List<BatchableStatement<?>> statements = new ArrayList<>(group.size());
                  group.forEach(r -> statements.add(r.rebind().apply(at)));
                  return BatchStatement.newInstance(BatchType.UNLOGGED, statements);
                });
      }
      writes.add(written.onSuccess(at -> group.forEach(r -> r.onWritten().accept(at))));
    }
    return writes;
  }

  private Future<Long> write(String kind, Statement<?> statement) {
    return statements.write(kind, at -> statement);
  }

  private Future<Long> write(String kind, LongFunction<Statement<?>> build) {
    return statements.write(kind, build);
  }

  /** The write plan could not be built: a bug or an event no row can hold; not worth a retry. */
  static final class PlanException extends RuntimeException {
    PlanException(Throwable cause) {
      super("could not plan the write: " + cause, cause);
    }
  }
}
