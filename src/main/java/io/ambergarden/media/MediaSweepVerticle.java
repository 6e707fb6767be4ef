package io.ambergarden.media;

import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.lease.LeaseClaims;
import io.ambergarden.lease.LeasePlanner;
import io.ambergarden.lease.ShardLeaseLoop;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The blob sweeper. Its work is split by blob-key shard ({@link ObjectKeys#SHARDS}); every scan
 * ({@link ShardLeaseLoop}, as the rollups') it renews or takes its fair share of shard leases
 * ({@link LeaseClaims}: lightweight transactions on media_sweep_shards, unfenced), then, per owned
 * shard, purges the blobs of images deleted more than media.purge-after ago and removes orphan
 * blobs ({@link BlobSweeps}).
 */
public final class MediaSweepVerticle extends VerticleBase {
  private final AmberConfig config;
  private final AmberConfig.Media cfg;
  private final String instanceId;
  private final MeterRegistry registry;
  private final SweepPlan plan;
  private CassandraClient client;
  private SweepStatements cql;
  private ObjectStore store;
  private BlobSweeps sweeps;
  private ShardLeaseLoop<Row> loop;

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
              loop =
                  new ShardLeaseLoop<>(
                      "media sweep",
                      new ShardLeaseLoop.Table<>(this::createShardRows, this::shards, Row::lease),
                      new LeaseClaims(
                          client, instanceId, cfg.sweepLeaseTtl(), cql.acquire(), cql.renew()),
                      System::currentTimeMillis,
                      this::sweep);
              sweeps =
                  new BlobSweeps(
                      client, cql, store, cfg, plan, instanceId, loop::stopping, orphans, purged);
              return loop.start(vertx, cfg.sweepInterval());
            });
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
    if (loop == null) {
      store.close();
      return Future.succeededFuture();
    }
    return loop.stop().onComplete(ar -> store.close());
  }

  /** The work of one scan on the shards it holds. */
  private Future<Void> sweep(List<Row> mine) {
    Future<Void> chain = Future.succeededFuture();
    for (Row r : mine) {
      int shard = r.lease().shard();
      // the lease's doneUntil carries the orphan progress
      chain =
          chain
              .compose(v -> sweeps.purges(shard, r.purgesUntil()))
              .compose(v -> sweeps.orphans(shard, r.lease().doneUntil()));
    }
    return chain;
  }

  /** A shard's row: its lease (with the orphan progress as doneUntil) and its purge progress. */
  private record Row(LeasePlanner.Shard lease, long purgesUntil) {}

  private Future<List<Row>> shards() {
    List<Integer> ids = IntStream.range(0, ObjectKeys.SHARDS).boxed().toList();
    return client
        .executeWithFullFetch(cql.readShards().bind(ids).setIdempotent(true))
        .map(
            rows ->
                rows.stream()
                    .map(
                        r ->
                            new Row(
                                new LeasePlanner.Shard(
                                    r.getInt(0),
                                    r.getString(1),
                                    millis(r.getInstant(2)),
                                    millis(r.getInstant(3))),
                                millis(r.getInstant(4))))
                    .toList());
  }

  private static long millis(Instant i) {
    return i == null ? 0 : i.toEpochMilli();
  }
}
