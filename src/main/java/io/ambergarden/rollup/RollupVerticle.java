package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.lease.LeasePlanner;
import io.ambergarden.lease.ShardLeaseLoop;
import io.ambergarden.lease.ShardLeases;
import io.ambergarden.lease.ShardTerms;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exact hourly rollups. Every scan ({@link ShardLeaseLoop}) it renews or takes its fair share of
 * rollup shard leases, then, per owned shard, processes the mark buckets that are due: each marked
 * (device, hour) is recomputed from detail and overwritten (idempotent), then the shard's
 * done_until advances, guarded by the lease. While a scan runs, held leases are renewed as they
 * come due, and a shard whose lease is lost or ran out stops; rollup writes carry a timestamp
 * inside the lease's fencing window ({@link ShardTerms}), so a stale owner's late write loses to
 * the newer owner's.
 */
public final class RollupVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(RollupVerticle.class);

  /** Probes (and buckets with marks) one scan takes per shard, so no shard starves the others. */
  private static final int MAX_STEPS_PER_SCAN = 120;

  private final AmberConfig config;
  private final AmberConfig.Rollups cfg;
  private final String instanceId;
  private final MeterRegistry registry;
  private final RollupMarks marks;
  private HourRecompute hours;
  private ExactCounts exact;
  private CountJournalScan journal;
  private ShardTerms terms;
  private ShardLeaseLoop<LeasePlanner.Shard> loop;
  private CassandraClient client;
  private RollupStatements cql;
  private BucketProbe probe;
  private Counter recomputes;

  public RollupVerticle(AmberConfig config, String instanceId, MeterRegistry registry) {
    this.config = config;
    this.cfg = config.rollups();
    this.instanceId = instanceId;
    this.registry = registry;
    this.marks = RollupMarks.of(cfg);
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    recomputes =
        Counter.builder("amber.rollup.recomputes")
            .description("(device, hour) rollups recomputed")
            .register(registry);
    String ks = config.cassandra().keyspace();
    Future<RollupStatements> rollupCql = RollupStatements.prepare(client, ks);
    Future<ExactCountStatements> countCql =
        config.counters().enabled()
            ? ExactCountStatements.prepare(client, ks)
            : Future.succeededFuture();
    return Future.all(rollupCql, countCql)
        .compose(
            all -> {
              cql = rollupCql.result();
              probe = new BucketProbe(client, cql.probeMarks(), marks, cfg.markSafety());
              ExactCountStatements counts = countCql.result();
              if (counts != null) {
                exact =
                    config.counters().reconcile() ? new ExactCounts(client, counts, config) : null;
                journal = new CountJournalScan(vertx, client, counts, config, marks, registry);
              }
              hours = new HourRecompute(client, cql, config, exact);
              terms = new ShardTerms(cfg.leaseTtl());
              loop =
                  new ShardLeaseLoop<>(
                      "rollup",
                      new ShardLeaseLoop.Table<>(this::createShardRows, this::shards, s -> s),
                      new ShardLeases(client, cql.leases(), instanceId, terms),
                      () -> ClusterClock.shared().millis(),
                      this::processShards);
              return loop.start(vertx, cfg.scanInterval());
            });
  }

  /**
   * Gives the leases back so another instance takes the shards over at once instead of after the
   * TTL.
   */
  @Override
  public Future<?> stop() {
    return loop == null ? Future.succeededFuture() : loop.stop();
  }

  /** Creates every shard's lease and progress row, and the journal's, with IF NOT EXISTS. */
  private Future<?> createShardRows() {
    long initialDone = marks.bucketOf(ClusterClock.shared().millis()) - marks.bucketMillis();
    List<Future<?>> creates = new ArrayList<>();
    for (int s = 0; s < cfg.shards(); s++) {
      creates.add(
          client.execute(
              cql.createShard().bind(s, Instant.EPOCH, Instant.ofEpochMilli(initialDone))));
    }
    if (journal != null) {
      creates.add(journal.init());
    }
    return Future.all(creates);
  }

  /** The work of one scan on the shards it holds (their rows as read before the claim). */
  private Future<Void> processShards(List<LeasePlanner.Shard> mine) {
    Future<Void> chain = Future.succeededFuture();
    for (LeasePlanner.Shard s : mine) {
      // one shard's failure (a contended LWT, a timeout) does not hold up the others
      chain =
          chain.compose(
              v ->
                  processShard(s.shard(), marks.resumeFrom(s.doneUntil()), 0)
                      .recover(
                          err -> {
                            LOG.warn(
                                "rollup of shard {} failed (retried next scan): {}",
                                s.shard(),
                                err.toString());
                            return Future.succeededFuture();
                          }));
    }
    if (journal == null) {
      return chain;
    }
    // the count journal beside the marks, not after them: a backlog of recomputes must not hold
    // up the counters (both are fenced by the lease on their own)
    Future<Void> counted = journal.process(mine.stream().map(LeasePlanner.Shard::shard).toList());
    return Future.join(chain, counted).mapEmpty();
  }

  private Future<List<LeasePlanner.Shard>> shards() {
    List<Integer> ids = IntStream.range(0, cfg.shards()).boxed().toList();
    return client
        .executeWithFullFetch(cql.readShards().bind(ids).setIdempotent(true))
        .map(
            rows ->
                rows.stream()
                    .map(
                        r ->
                            new LeasePlanner.Shard(
                                r.getInt(0),
                                r.getString(1),
                                millis(r.getInstant(2)),
                                millis(r.getInstant(3))))
                    .toList());
  }

  private static long millis(Instant i) {
    return i == null ? 0 : i.toEpochMilli();
  }

  private Future<Boolean> lwt(Statement<?> s) {
    return client.execute(s).map(ResultSet::wasApplied);
  }

  /**
   * Probes the next due buckets, skips the empty ones and processes the first that holds marks;
   * done_until moves past both in one lightweight transaction.
   */
  private Future<Void> processShard(int shard, long doneUntil, int steps) {
    long now = ClusterClock.shared().millis();
    if (loop.stopping() || steps >= MAX_STEPS_PER_SCAN || !terms.holds(shard, now)) {
      return Future.succeededFuture();
    }
    return probe
        .step(shard, doneUntil, now, bucket -> processBucket(shard, bucket))
        .compose(
            next ->
                next.isEmpty()
                    ? Future.succeededFuture()
                    : advance(shard, next.getAsLong(), steps));
  }

  private Future<Void> advance(int shard, long next, int steps) {
    return lwt(cql.advance().bind(Instant.ofEpochMilli(next), shard, instanceId))
        .compose(
            stillOwner ->
                stillOwner ? processShard(shard, next, steps + 1) : Future.succeededFuture());
  }

  private Future<Void> processBucket(int shard, long bucket) {
    Statement<?> q =
        cql.readMarks()
            .bind(shard, Instant.ofEpochMilli(bucket))
            .setIdempotent(true)
            .setExecutionProfileName(CassandraClients.READ_PROFILE)
            .setPageSize(500);
    Set<Long> hours = new TreeSet<>();
    Set<Long> lateHours = new TreeSet<>();
    return client
        .execute(q)
        .compose(rs -> processPage(shard, bucket, rs, hours, lateHours))
        .compose(v -> closeBucket(shard, bucket, hours, lateHours));
  }

  private Future<Void> processPage(
      int shard, long bucket, ResultSet rs, Set<Long> hours, Set<Long> lateHours) {
    List<RollupMarks.Mark> page = new ArrayList<>();
    for (Row r : rs.currentPage()) {
      page.add(new RollupMarks.Mark(shard, bucket, r.getInstant(0).toEpochMilli(), r.getString(1)));
    }
    List<RollupMarks.Mark> late = page.stream().filter(marks::filedLate).toList();
    page.forEach(m -> hours.add(m.hour()));
    late.forEach(m -> lateHours.add(m.hour()));
    return recomputeAll(page, 0)
        .compose(v -> exact == null ? Future.succeededFuture() : exact.closeDevices(bucket, late))
        .compose(
            v ->
                rs.hasMorePages()
                    ? rs.fetchNextPage()
                        .compose(next -> processPage(shard, bucket, next, hours, lateHours))
                    : Future.succeededFuture());
  }

  /** Recomputes marks in groups of max-concurrent-recomputes. */
  private Future<Void> recomputeAll(List<RollupMarks.Mark> page, int from) {
    if (from >= page.size()) {
      return Future.succeededFuture();
    }
    int to = Math.min(page.size(), from + cfg.maxConcurrentRecomputes());
    List<Future<?>> group = new ArrayList<>();
    for (RollupMarks.Mark m : page.subList(from, to)) {
      group.add(recompute(m.shard(), m.deviceId(), m.hour()));
    }
    return Future.all(group).compose(v -> recomputeAll(page, to));
  }

  /** The bucket's exact day stats, stamped inside the lease window like the recomputes. */
  private Future<Void> closeBucket(int shard, long bucket, Set<Long> hours, Set<Long> lateHours) {
    if (exact == null) {
      return Future.succeededFuture();
    }
    OptionalLong stamp = terms.stamp(shard, ClusterClock.shared().millis());
    if (stamp.isEmpty()) {
      return Future.failedFuture("the lease of rollup shard " + shard + " ended");
    }
    return exact.closeBucket(shard, bucket, hours, lateHours, stamp.getAsLong());
  }

  /**
   * Recomputes one (device, hour) from detail and overwrites its rollup rows and exact counts,
   * stamped inside the shard's lease window; fails once the lease is lost or ran out, which stops
   * the shard.
   */
  private Future<Void> recompute(int shard, String deviceId, long hour) {
    OptionalLong stamp = terms.stamp(shard, ClusterClock.shared().millis());
    if (stamp.isEmpty()) {
      return Future.failedFuture("the lease of rollup shard " + shard + " ended");
    }
    return hours
        .recompute(shard, deviceId, hour, stamp.getAsLong())
        .onSuccess(v -> recomputes.increment());
  }
}
