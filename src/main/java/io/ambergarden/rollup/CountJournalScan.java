package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.CountFacts;
import io.ambergarden.bus.CountRequest;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.LogThrottle;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a leased shard's count journal to the counters, bucket by bucket, off the acknowledgement
 * path. A bucket is applied once it ended rollup.mark-safety ago (no write attempt can land in it
 * any more), through the counter verticle, in requests of at most counters.max-pending-cells cells;
 * then the shard's counted_until moves past it by compare-and-set. A bucket whose application
 * failed part way is sent again next scan, part by part; the counter verticle applies only what it
 * did not apply before (updates of unknown outcome may count twice until their hours are
 * reconciled). A new owner of the shard, which knows none of that, applies the bucket whole.
 */
final class CountJournalScan {
  private static final Logger LOG = LoggerFactory.getLogger(CountJournalScan.class);

  /** Probes (and buckets applied) one scan takes per shard, so no shard starves the others. */
  private static final int MAX_STEPS_PER_SCAN = 120;

  /** How far back a new shard's progress starts: before any instance wrote to it. */
  static final Duration INITIAL_LOOKBACK = Duration.ofMinutes(10);

  /** Facts are small groups of events; a fact makes at most this many counter cells. */
  private static final int CELLS_PER_FACT = 5;

  private final Vertx vertx;
  private final CassandraClient client;
  private final ExactCountStatements cql;
  private final AmberConfig config;
  private final RollupMarks marks;
  private final BucketProbe probe;
  private final long applyTimeoutMillis;
  private final LogThrottle unreadableLogs = new LogThrottle(1, Duration.ofSeconds(10));
  private final Counter applied;
  private final Counter unreadable;

  /** counted_until per shard as last seen by this instance (the backlog gauge). */
  private final Map<Integer, Long> countedUntil = new ConcurrentHashMap<>();

  CountJournalScan(
      Vertx vertx,
      CassandraClient client,
      ExactCountStatements cql,
      AmberConfig config,
      RollupMarks marks,
      MeterRegistry registry) {
    this.vertx = vertx;
    this.client = client;
    this.cql = cql;
    this.config = config;
    this.marks = marks;
    this.probe = new BucketProbe(client, cql.probeJournal(), marks, config.rollups().markSafety());
    // a request carries up to max-pending-cells cells, each statement retried a few times
    this.applyTimeoutMillis = config.cassandra().requestTimeout().multipliedBy(8).toMillis();
    this.applied =
        Counter.builder("amber.counter.journal.buckets")
            .description("Count journal buckets applied to the counters")
            .register(registry);
    this.unreadable =
        Counter.builder("amber.counter.journal.unreadable")
            .description(
                "Count records that could not be decoded (skipped; their hours are still reconciled)")
            .register(registry);
    Gauge.builder("amber.counter.backlog.seconds", this, CountJournalScan::backlogSeconds)
        .description(
            "How far behind now the oldest count journal shard this instance applied is (seconds)")
        .register(registry);
  }

  /** Creates every shard's progress row that is missing. */
  Future<Void> init() {
    long start = marks.bucketOf(ClusterClock.shared().millis() - INITIAL_LOOKBACK.toMillis());
    List<Future<?>> creates = new ArrayList<>();
    for (int s = 0; s < config.rollups().shards(); s++) {
      creates.add(client.execute(cql.createProgress().bind(s, Instant.ofEpochMilli(start))));
    }
    return Future.all(creates).mapEmpty();
  }

  /** Applies the due buckets of the shards this instance holds, one shard after the other. */
  Future<Void> process(List<Integer> shards) {
    countedUntil.keySet().retainAll(shards);
    if (shards.isEmpty()) {
      return Future.succeededFuture();
    }
    return client
        .executeWithFullFetch(cql.readProgress().bind(shards).setIdempotent(true))
        .compose(
            rows -> {
              Future<Void> chain = Future.succeededFuture();
              for (Row r : rows) {
                int shard = r.getInt(0);
                Instant until = r.getInstant(1);
                if (until == null) {
                  continue;
                }
                countedUntil.put(shard, until.toEpochMilli());
                chain =
                    chain.compose(
                        v ->
                            processShard(shard, until.toEpochMilli(), 0)
                                .recover(
                                    err -> {
                                      LOG.warn(
                                          "count journal of shard {} not applied (retried next scan): {}",
                                          shard,
                                          err.toString());
                                      return Future.succeededFuture();
                                    }));
              }
              return chain;
            });
  }

  /**
   * Probes the next due buckets, skips the empty ones and applies the first that holds records;
   * counted_until moves past both in one compare-and-set.
   */
  private Future<Void> processShard(int shard, long until, int steps) {
    if (steps >= MAX_STEPS_PER_SCAN) {
      return Future.succeededFuture();
    }
    return probe
        .step(
            shard,
            marks.resumeFrom(until),
            ClusterClock.shared().millis(),
            bucket -> applyBucket(shard, bucket).onSuccess(v -> applied.increment()))
        .compose(
            next ->
                next.isEmpty()
                    ? Future.succeededFuture()
                    : advance(shard, until, next.getAsLong(), steps));
  }

  private Future<Void> advance(int shard, long until, long next, int steps) {
    return client
        .execute(
            cql.advanceProgress()
                .bind(Instant.ofEpochMilli(next), shard, Instant.ofEpochMilli(until)))
        .compose(
            rs -> {
              if (!rs.wasApplied()) {
                // another owner moved it: this one no longer holds the shard
                return Future.succeededFuture();
              }
              countedUntil.put(shard, next);
              return processShard(shard, next, steps + 1);
            });
  }

  private Future<Void> applyBucket(int shard, long bucket) {
    return client
        .execute(
            cql.readJournal()
                .bind(shard, Instant.ofEpochMilli(bucket))
                .setIdempotent(true)
                .setExecutionProfileName(CassandraClients.READ_PROFILE)
                .setPageSize(200))
        .compose(rs -> applyPages(rs, new ArrayList<>(), journalRequestId(shard, bucket), 0));
  }

  /**
   * What the counter verticle logs an apply of one journal bucket with (no HTTP request caused it).
   */
  static String journalRequestId(int shard, long bucket) {
    return "journal-" + shard + "-" + bucket;
  }

  /**
   * Reads the bucket page by page, sending the facts whenever they could make more cells than one
   * request may carry, and the rest at the end. Each request is a numbered part of the bucket: the
   * bucket is due, so its rows and their order never change, and a part sent again after a failure
   * is the same part (the counter verticle applies only what it did not apply before).
   */
  private Future<Void> applyPages(
      ResultSet rs, List<CountFacts.Fact> pending, String requestId, int part) {
    for (Row r : rs.currentPage()) {
      ByteBuffer blob = r.getByteBuffer(0);
      try {
        pending.addAll(CountFacts.decode(blob));
      } catch (IllegalArgumentException e) {
        unreadable.increment();
        long skipped = unreadableLogs.tryAcquire();
        if (skipped != LogThrottle.SUPPRESS) {
          LOG.error("count record skipped ({} more not logged): {}", skipped, e.getMessage());
        }
      }
    }
    int limit = Math.max(1, config.counters().maxPendingCells() / CELLS_PER_FACT);
    Future<Void> sent = Future.succeededFuture();
    List<CountFacts.Fact> rest = pending;
    int nextPart = part;
    if (pending.size() >= limit || !rs.hasMorePages()) {
      sent = send(pending, requestId, part);
      rest = new ArrayList<>();
      nextPart = part + 1;
    }
    List<CountFacts.Fact> carry = rest;
    int following = nextPart;
    return sent.compose(
        v ->
            rs.hasMorePages()
                ? rs.fetchNextPage().compose(next -> applyPages(next, carry, requestId, following))
                : Future.succeededFuture());
  }

  private Future<Void> send(List<CountFacts.Fact> facts, String requestId, int part) {
    if (facts.isEmpty()) {
      return Future.succeededFuture();
    }
    return Addresses.COUNTERS_APPLY
        .request(
            vertx, new CountRequest(requestId + "#" + part, facts), requestId, applyTimeoutMillis)
        .mapEmpty();
  }

  private double backlogSeconds() {
    if (countedUntil.isEmpty()) {
      return 0;
    }
    long oldest = countedUntil.values().stream().mapToLong(Long::longValue).min().orElse(0);
    return Math.max(0, ClusterClock.shared().millis() - oldest) / 1000.0;
  }
}
