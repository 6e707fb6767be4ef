package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.micrometer.core.instrument.Counter;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The work of one leased sweep shard: purging the blobs of images deleted long enough ago, and
 * collecting orphan blobs (stored, but their metadata never written). A blob is only ever removed
 * after reading its metadata; metadata is never removed because a blob is missing.
 */
final class BlobSweeps {
  private static final int MAX_BUCKETS_PER_SCAN = 500;
  private static final int LIST_PAGE = 500;
  private static final int MAX_LIST_PAGES_PER_SCAN = 10;

  private final CassandraClient client;
  private final SweepStatements cql;
  private final ObjectStore store;
  private final AmberConfig.Media cfg;
  private final SweepPlan plan;
  private final String instanceId;
  private final BooleanSupplier stopping;
  private final Counter orphansRemoved;
  private final Counter blobsPurged;

  BlobSweeps(
      CassandraClient client,
      SweepStatements cql,
      ObjectStore store,
      AmberConfig.Media cfg,
      SweepPlan plan,
      String instanceId,
      BooleanSupplier stopping,
      Counter orphansRemoved,
      Counter blobsPurged) {
    this.client = client;
    this.cql = cql;
    this.store = store;
    this.cfg = cfg;
    this.plan = plan;
    this.instanceId = instanceId;
    this.stopping = stopping;
    this.orphansRemoved = orphansRemoved;
    this.blobsPurged = blobsPurged;
  }

  /**
   * Processes the shard's due purge buckets from {@code doneUntil} on, only those the bucket index
   * lists, then advances the shard's progress once, guarded by the lease.
   */
  Future<Void> purges(int shard, long doneUntil) {
    long last = plan.lastDueBucket(System.currentTimeMillis());
    if (last < doneUntil || stopping.getAsBoolean()) {
      return Future.succeededFuture();
    }
    Statement<?> listed =
        cql.readPurgeBuckets()
            .bind(
                shard,
                Instant.ofEpochMilli(doneUntil),
                Instant.ofEpochMilli(last),
                MAX_BUCKETS_PER_SCAN);
    return client
        .executeWithFullFetch(read(listed))
        .compose(
            rows -> {
              List<Long> due = rows.stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
              // a full answer may have more after it: go on from its last bucket next scan
              long next =
                  due.size() >= MAX_BUCKETS_PER_SCAN
                      ? due.get(due.size() - 1) + plan.bucketMillis()
                      : last + plan.bucketMillis();
              return each(due, bucket -> purgeBucket(shard, bucket))
                  .compose(
                      v ->
                          advance(
                              cql.advancePurges()
                                  .bind(Instant.ofEpochMilli(next), shard, instanceId)));
            })
        .mapEmpty();
  }

  private Future<Void> purgeBucket(int shard, long bucket) {
    Statement<?> marks =
        cql.readMarks().bind(shard, Instant.ofEpochMilli(bucket)).setPageSize(LIST_PAGE);
    return client
        .executeWithFullFetch(read(marks))
        .compose(rows -> each(rows.stream().map(r -> r.getUuid(0)).toList(), this::purge));
  }

  private Future<Void> purge(UUID imageId) {
    return client
        .executeWithFullFetch(read(cql.readImage().bind(imageId)))
        .compose(
            rows -> {
              Row r = rows.isEmpty() ? null : rows.get(0);
              long now = System.currentTimeMillis();
              if (r == null
                  || !ImageRows.DELETED.equals(r.getString(1))
                  || r.getInstant(2) == null
                  || r.getInstant(3) != null
                  || !SweepPlan.purgeable(r.getInstant(2).toEpochMilli(), cfg.purgeAfter(), now)) {
                return Future.succeededFuture();
              }
              return store
                  .delete(r.getString(0))
                  .compose(
                      v ->
                          client.execute(
                              cql.markPurged()
                                  .bind(Instant.ofEpochMilli(now), imageId)
                                  .setIdempotent(true)))
                  .onSuccess(v -> blobsPurged.increment())
                  .mapEmpty();
            });
  }

  /**
   * Checks the shard's blobs uploaded in [doneUntil, now - orphan grace), in upload order, and
   * removes those whose image has no metadata.
   */
  Future<Void> orphans(int shard, long doneUntil) {
    long horizon = SweepPlan.orphanHorizon(System.currentTimeMillis(), cfg.orphanGrace());
    if (stopping.getAsBoolean() || horizon <= doneUntil) {
      return Future.succeededFuture();
    }
    return orphanPages(shard, doneUntil, horizon, 0)
        .compose(
            reached ->
                advance(
                    cql.advanceOrphans().bind(Instant.ofEpochMilli(reached), shard, instanceId)))
        .mapEmpty();
  }

  /** Completes with how far the check got (upload time). */
  private Future<Long> orphanPages(int shard, long from, long horizon, int pages) {
    if (pages >= MAX_LIST_PAGES_PER_SCAN || stopping.getAsBoolean()) {
      return Future.succeededFuture(from);
    }
    return store
        .list(ObjectKeys.prefix(shard), ObjectKeys.startAfter(shard, from), LIST_PAGE)
        .compose(
            listing -> {
              List<ObjectKeys.Parsed> due = new ArrayList<>();
              boolean pastHorizon = false;
              for (ObjectStore.Listed o : listing.objects()) {
                var parsed = ObjectKeys.parse(o.key());
                if (parsed.isEmpty()) {
                  continue; // not ours: never touched
                }
                if (parsed.get().uploadedAt() >= horizon) {
                  pastHorizon = true;
                  break;
                }
                due.add(parsed.get());
              }
              boolean finished = pastHorizon || !listing.truncated();
              // keys of the same millisecond as the last one checked are checked again: harmless;
              // a page of only foreign keys makes no progress rather than skipping ours
              long reached =
                  finished ? horizon : due.isEmpty() ? from : due.get(due.size() - 1).uploadedAt();
              return each(due, this::collectIfOrphan)
                  .compose(
                      v ->
                          finished || due.isEmpty()
                              ? Future.succeededFuture(reached)
                              : orphanPages(shard, reached, horizon, pages + 1));
            });
  }

  private Future<Void> collectIfOrphan(ObjectKeys.Parsed blob) {
    return client
        .executeWithFullFetch(read(cql.readImage().bind(blob.imageId())))
        .compose(
            rows ->
                rows.isEmpty()
                    ? store
                        .delete(ObjectKeys.key(blob.imageId(), blob.uploadedAt()))
                        .onSuccess(v -> orphansRemoved.increment())
                    : Future.succeededFuture());
  }

  private static <T> Future<Void> each(
      List<T> items, java.util.function.Function<T, Future<?>> op) {
    // a few at a time: the sweeper must not crowd out request traffic
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < items.size(); i += 8) {
      List<T> group = items.subList(i, Math.min(items.size(), i + 8));
      chain = chain.compose(v -> Future.all(group.stream().map(op).toList()).mapEmpty());
    }
    return chain;
  }

  private Future<Boolean> advance(Statement<?> lwt) {
    return client.execute(lwt).map(ResultSet::wasApplied);
  }

  private static Statement<?> read(Statement<?> s) {
    return s.setIdempotent(true).setExecutionProfileName(CassandraClients.READ_PROFILE);
  }
}
