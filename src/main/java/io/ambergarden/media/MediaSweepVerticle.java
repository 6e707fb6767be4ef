package io.ambergarden.media;

import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.lease.ShardRows;
import io.ambergarden.rollup.LeaseClaims;
import io.ambergarden.rollup.LeasePlanner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blob sweeper. Its work is split by blob-key shard ({@link ObjectKeys#SHARDS}); every scan it
 * renews or takes its fair share of shard leases exactly as the rollups do ({@link LeasePlanner},
 * lightweight transactions on media_sweep_shards), then, per owned shard, purges the blobs of
 * images deleted more than media.purge-after ago and removes orphan blobs ({@link BlobSweeps}).
 */
public final class MediaSweepVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(MediaSweepVerticle.class);

  private final AmberConfig config;
  private final AmberConfig.Media cfg;
  private final String instanceId;
  private final MeterRegistry registry;
  private final SweepPlan plan;
  private CassandraClient client;
  private SweepStatements cql;
  private ObjectStore store;
  private BlobSweeps sweeps;
  private long timer = -1;
  private boolean scanning;
  private volatile boolean stopping;
  private ShardRows shardRows;

  public MediaSweepVerticle(AmberConfig config, String instanceId, MeterRegistry registry) {
    this.config = config;
    this.cfg = config.media();
    this.instanceId = instanceId;
    this.registry = registry;
    this.plan = plan(config);
  }

  /** Purge buckets are read only well after a slow mark write could still land in them. */
  static SweepPlan plan(AmberConfig config) {
    return new SweepPlan(
        config.media().sweepBucket(), config.cassandra().requestTimeout().multipliedBy(2));
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    store = new ObjectStore(vertx, cfg);
    Counter orphans =
        Counter.builder("amber.media.orphans.removed")
            .description("Blobs removed because no metadata was written for them")
            .register(registry);
    Counter purged =
        Counter.builder("amber.media.blobs.purged")
            .description("Blobs of soft-deleted images purged")
            .register(registry);
    return SweepStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              sweeps =
                  new BlobSweeps(
                      client, cql, store, cfg, plan, instanceId, () -> stopping, orphans, purged);
              shardRows = new ShardRows(this::createShardRows);
              return shardRows.ensureAtStart(LOG, "media sweep");
            })
        .onSuccess(v -> timer = vertx.setPeriodic(cfg.sweepInterval().toMillis(), id -> scan()));
  }

  private Future<?> createShardRows() {
    Instant initialPurges =
        Instant.ofEpochMilli(plan.bucketOf(System.currentTimeMillis()) - plan.bucketMillis());
    List<Future<?>> creates = new ArrayList<>();
    for (int s = 0; s < ObjectKeys.SHARDS; s++) {
      // orphans from the beginning of the bucket, purges from now: no mark is older
      creates.add(
          client.execute(cql.createShard().bind(s, Instant.EPOCH, Instant.EPOCH, initialPurges)));
    }
    return Future.all(creates);
  }

  /** Gives the leases back so another instance takes the shards over at once. */
  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(timer);
    if (cql == null) {
      store.close();
      return Future.succeededFuture();
    }
    return shards()
        .compose(
            rows ->
                Future.join(
                    rows.keySet().stream()
                        .filter(s -> instanceId.equals(rows.get(s).owner()))
                        .map(
                            s ->
                                (Future<?>)
                                    client.execute(cql.renew().bind(Instant.EPOCH, s, instanceId)))
                        .toList()))
        .otherwiseEmpty()
        .onComplete(ar -> store.close());
  }

  private void scan() {
    if (scanning || stopping) {
      return;
    }
    scanning = true;
    scanOnce()
        .onComplete(
            ar -> {
              scanning = false;
              if (ar.failed() && !stopping) {
                LOG.warn("media sweep failed (retried next scan): {}", ar.cause().toString());
              }
            });
  }

  Future<Void> scanOnce() {
    long now = System.currentTimeMillis();
    Instant leaseUntil = Instant.ofEpochMilli(now + cfg.sweepLeaseTtl().toMillis());
    Map<Integer, Long> purgesUntil = new HashMap<>();
    return shardRows
        .ensure()
        .compose(v -> shards())
        .compose(
            rows -> {
              rows.forEach((s, r) -> purgesUntil.put(s, r.purgesUntil()));
              List<LeasePlanner.Shard> view = rows.values().stream().map(Row::lease).toList();
              LeasePlanner.Plan p = LeasePlanner.plan(view, instanceId, now);
              return LeaseClaims.claim(
                  client, p, instanceId, leaseUntil, cql.renew(), cql.acquire());
            })
        .compose(
            mine -> {
              Future<Void> chain = Future.succeededFuture();
              for (LeasePlanner.Shard s : mine) {
                // the lease's doneUntil carries the orphan progress
                chain =
                    chain
                        .compose(v -> sweeps.purges(s.shard(), purgesUntil.get(s.shard())))
                        .compose(v -> sweeps.orphans(s.shard(), s.doneUntil()));
              }
              return chain;
            });
  }

  /** A shard's row: its lease (with the orphan progress as doneUntil) and its purge progress. */
  private record Row(LeasePlanner.Shard lease, long purgesUntil) {
    String owner() {
      return lease.owner();
    }
  }

  private Future<Map<Integer, Row>> shards() {
    List<Integer> ids = IntStream.range(0, ObjectKeys.SHARDS).boxed().toList();
    return client
        .executeWithFullFetch(cql.readShards().bind(ids).setIdempotent(true))
        .map(
            rows -> {
              Map<Integer, Row> out = new HashMap<>();
              for (var r : rows) {
                out.put(
                    r.getInt(0),
                    new Row(
                        new LeasePlanner.Shard(
                            r.getInt(0),
                            r.getString(1),
                            millis(r.getInstant(2)),
                            millis(r.getInstant(3))),
                        millis(r.getInstant(4))));
              }
              return out;
            });
  }

  private static long millis(Instant i) {
    return i == null ? 0 : i.toEpochMilli();
  }
}
