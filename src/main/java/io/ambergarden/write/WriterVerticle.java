package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
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
import io.ambergarden.metrics.LogThrottle;
import io.ambergarden.rollup.RollupMarks;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongConsumer;
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
  private Map<WritePlan.DetailKey, Boolean> knownBuckets;
  private Map<RollupMarks.Mark, Boolean> writtenMarks;
  private final RollupMarks marks;
  private final ReplicaLocator replicas;

  /**
   * A single-partition write and what to do once it is written. {@code at} is the time its
   * successful attempt was sent; a row may be rebound for it ({@link #rebind}).
   */
  private record Row(
      String kind,
      BoundStatement statement,
      LongFunction<BoundStatement> rebind,
      LongConsumer onWritten) {
    Row(String kind, BoundStatement statement) {
      this(kind, statement, at -> statement, at -> {});
    }

    Row(String kind, BoundStatement statement, Runnable onWritten) {
      this(kind, statement, at -> statement, at -> onWritten.run());
    }
  }

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
    statements =
        new StatementWriter(
            vertx, client, new StatementLimiter(cfg.maxConcurrentStatements()), meters, cfg);
    int cacheSize = cfg.bucketCacheSize();
    knownBuckets = lruSet(cacheSize);
    writtenMarks = lruSet(cacheSize);
    return WriterStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              binder = new RowBinder(prepared, config, buckets);
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
    Future<?> detail;
    try {
      detail = Future.join(writeAll(events, now));
    } catch (RuntimeException e) {
      // a bug or an event no row can hold: give the capacity back and answer now, not by timeout
      detail = Future.failedFuture(new PlanException(e));
    }
    // detail first: a rollup mark or counter increment is written only for events that are stored
    detail
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
                boolean invalid =
                    StatementWriter.causedBy(cause, QueryValidationException.class)
                        || StatementWriter.causedBy(cause, PlanException.class);
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

  /** A bounded access-ordered map used as an LRU set of rows already written. */
  private static <K> Map<K, Boolean> lruSet(int maxSize) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
        return size() > maxSize;
      }
    };
  }

  private List<Future<?>> afterStored(List<Event> events) {
    List<Future<?>> out = new ArrayList<>();
    if (config.rollups().enabled()) {
      long now = System.currentTimeMillis();
      List<Row> rows = new ArrayList<>();
      for (RollupMarks.Mark m : marks.of(events, now)) {
        if (!writtenMarks.containsKey(m)) {
          // filed under the time each attempt is sent, so a retried mark never lands in a bucket
          // the rollup already read (see RollupMarks.stampedAt)
          rows.add(
              new Row(
                  "mark",
                  binder.mark(m),
                  at -> binder.mark(marks.stampedAt(m, at)),
                  at -> writtenMarks.put(marks.stampedAt(m, at), Boolean.TRUE)));
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

  private List<Future<?>> writeAll(List<Event> events, long now) {
    AmberConfig.Cassandra c = config.cassandra();
    WritePlan plan =
        new WritePlan(events, buckets, config.events(), c.typeSalts(), c.abnormalSalts());
    List<Future<?>> writes = new ArrayList<>();
    List<Row> singles = new ArrayList<>();
    plan.detailChunks(cfg.batchMaxRows())
        .forEach(
            (key, chunks) ->
                chunks.forEach(
                    chunk ->
                        batchOrSingle(
                            "detail",
                            chunk,
                            e -> binder.detail(e, key.bucket(), now),
                            writes,
                            singles)));
    for (WritePlan.DetailKey key : plan.detailPartitions()) {
      if (!knownBuckets.containsKey(key)) {
        BoundStatement s = binder.bucket(key, now);
        singles.add(new Row("bucket", s, () -> knownBuckets.put(key, Boolean.TRUE)));
      }
    }
    plan.latest().values().forEach(e -> singles.add(new Row("latest", binder.latest(e, now))));
    plan.typeChunks(cfg.batchMaxRows())
        .forEach(
            (key, chunks) ->
                chunks.forEach(
                    chunk ->
                        batchOrSingle(
                            "by_type", chunk, e -> binder.byType(e, key, now), writes, singles)));
    plan.abnormal()
        .forEach((key, e) -> singles.add(new Row("abnormal", binder.abnormal(key, e, now))));
    writes.addAll(writeGrouped(singles));
    return writes;
  }

  /** Rows of one partition: a batch of them when there are several, else one row for grouping. */
  private void batchOrSingle(
      String kind,
      List<Event> rows,
      Function<Event, BoundStatement> row,
      List<Future<?>> writes,
      List<Row> singles) {
    if (rows.size() == 1) {
      singles.add(new Row(kind, row.apply(rows.get(0))));
      return;
    }
    List<BatchableStatement<?>> statements = new ArrayList<>(rows.size());
    rows.forEach(e -> statements.add(row.apply(e)));
    writes.add(write(kind, BatchStatement.newInstance(BatchType.UNLOGGED, statements)));
  }

  /**
   * Single-partition rows grouped by their replicas ({@link ReplicaBatches}); a group of one goes
   * as it is.
   */
  private List<Future<?>> writeGrouped(List<Row> rows) {
    List<Future<?>> writes = new ArrayList<>();
    for (List<Row> group :
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
