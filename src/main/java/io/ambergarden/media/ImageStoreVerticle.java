package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.ImageDelete;
import io.ambergarden.bus.ImageGet;
import io.ambergarden.bus.ImageMeta;
import io.ambergarden.bus.ImageSave;
import io.ambergarden.bus.ShareCreate;
import io.ambergarden.bus.ShareGet;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Image metadata in Cassandra: writes an uploaded image (after its blob is stored), reads it,
 * soft-deletes it, and creates and resolves share links.
 *
 * <p>The metadata of one image is one logged batch: image_by_id, its images_by_device row and one
 * images_by_tag row per tag, at most 10 partitions (media.max-tags is at most 8). This is the case
 * for a logged batch: the rows must not disagree (an image listed under a tag but missing from its
 * device, or a delete that hides it in one list only), and the batch log makes the set
 * all-or-nothing in the end even when the coordinator fails mid-way. It is not used for throughput:
 * the month-index rows, purge marks and shares are single idempotent writes outside any batch,
 * written before the rows that depend on them.
 */
public final class ImageStoreVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ImageStoreVerticle.class);
  private static final int MONTH_CACHE = 10_000;

  private final AmberConfig config;
  private final AmberConfig.Media cfg;
  private final SweepPlan plan;

  /**
   * Month-index rows this instance wrote recently, so each is written about once, not per image.
   */
  private final Map<String, Boolean> monthsWritten =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > MONTH_CACHE;
        }
      };

  private CassandraClient client;
  private ImageStatements cql;
  private ObjectStore store;
  private long bucketRetry = -1;

  public ImageStoreVerticle(AmberConfig config) {
    this.config = config;
    this.cfg = config.media();
    this.plan = MediaSweepVerticle.plan(config);
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    store = new ObjectStore(vertx, cfg);
    return ImageStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              return Future.all(
                  consume(ImageSave.ENDPOINT, (ImageSave.Request r) -> save(r.image())),
                  consume(ImageGet.ENDPOINT, (ImageGet.Request r) -> get(r.imageId())),
                  consume(ImageDelete.ENDPOINT, (ImageDelete.Request r) -> delete(r.imageId())),
                  consume(ShareCreate.ENDPOINT, this::share),
                  consume(ShareGet.ENDPOINT, (ShareGet.Request r) -> shared(r.shareId())));
            })
        .compose(v -> cfg.s3CreateBucket() ? ensureBucket() : Future.succeededFuture());
  }

  /** The store may be down at startup: that is a 503 on uploads, not a failed deployment. */
  private Future<Void> ensureBucket() {
    return store
        .ensureBucket()
        .onSuccess(v -> vertx.cancelTimer(bucketRetry))
        .recover(
            e -> {
              LOG.warn(
                  "object store bucket {} not ready (retrying): {}", cfg.s3Bucket(), e.toString());
              if (bucketRetry < 0) {
                bucketRetry = vertx.setPeriodic(10_000, id -> ensureBucket());
              }
              return Future.succeededFuture();
            });
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(bucketRetry);
    if (store != null) {
      store.close();
    }
    return Future.succeededFuture();
  }

  private <Q, R> Future<Void> consume(Endpoint<Q, R> endpoint, Function<Q, Future<R>> handler) {
    return endpoint.consumer(vertx, msg -> answer(msg, handler.apply(msg.body()))).completion();
  }

  private static void answer(Message<?> msg, Future<?> reply) {
    reply
        .onSuccess(msg::reply)
        .onFailure(
            err -> {
              if (err instanceof ImageNotFound) {
                FailureCode.NOT_FOUND.fail(msg, err.getMessage());
              } else {
                FailureCode.UNAVAILABLE.fail(msg, "image metadata: " + err.getMessage());
              }
            });
  }

  private Future<ImageMeta> save(ImageMeta m) {
    int month = Months.of(m.createdAt());
    Instant created = Instant.ofEpochMilli(m.createdAt());
    // the month index first: a reader must never miss rows because their month is not indexed yet
    List<Future<?>> index = new ArrayList<>();
    index.add(
        indexMonth(
            "d|" + m.deviceId() + "|" + month, cql.insertDeviceMonth(), m.deviceId(), month));
    for (String tag : m.tags()) {
      index.add(indexMonth("t|" + tag + "|" + month, cql.insertTagMonth(), tag, month));
    }
    BatchStatementBuilder batch =
        BatchStatement.builder(DefaultBatchType.LOGGED)
            .addStatement(
                cql.insertImage()
                    .bind(
                        m.imageId(),
                        m.deviceId(),
                        m.contentType(),
                        m.bytes(),
                        m.sha256(),
                        m.tags(),
                        created,
                        m.objectKey()))
            .addStatement(
                cql.insertByDevice()
                    .bind(
                        m.deviceId(),
                        month,
                        created,
                        m.imageId(),
                        m.contentType(),
                        m.bytes(),
                        m.sha256(),
                        m.tags()));
    for (String tag : m.tags()) {
      batch.addStatement(
          cql.insertByTag()
              .bind(
                  tag,
                  month,
                  created,
                  m.imageId(),
                  m.deviceId(),
                  m.contentType(),
                  m.bytes(),
                  m.sha256(),
                  m.tags()));
    }
    // same values on a retry or speculative execution, and the driver's client-side timestamp is
    // kept across them: idempotent
    return Future.all(index)
        .compose(v -> client.execute(batch.build().setIdempotent(true)))
        .map(rs -> m);
  }

  private Future<Void> indexMonth(
      String cacheKey,
      com.datastax.oss.driver.api.core.cql.PreparedStatement insert,
      String key,
      int month) {
    if (monthsWritten.get(cacheKey) != null) {
      return Future.succeededFuture();
    }
    return client
        .execute(insert.bind(key, month).setIdempotent(true))
        .onSuccess(rs -> monthsWritten.put(cacheKey, Boolean.TRUE))
        .mapEmpty();
  }

  private Future<ImageMeta> get(UUID imageId) {
    return read(cql.readImage().bind(imageId))
        .map(
            row -> {
              ImageMeta m = row == null ? null : ImageRows.ofImage(imageId, row);
              if (m == null || m.deleted()) {
                throw new ImageNotFound("no image " + imageId);
              }
              return m;
            });
  }

  private Future<ImageDelete.Reply> delete(UUID imageId) {
    return get(imageId)
        .compose(
            m -> {
              long now = System.currentTimeMillis();
              long due = now + cfg.purgeAfter().toMillis();
              int shard = ObjectKeys.shard(imageId);
              Instant bucket = Instant.ofEpochMilli(plan.purgeBucket(due));
              int ttl = plan.markTtlSeconds(due, now);
              Statement<?> mark =
                  cql.insertPurgeMark().bind(shard, bucket, imageId, ttl).setIdempotent(true);
              Statement<?> listed =
                  cql.insertPurgeBucket().bind(shard, bucket, ttl).setIdempotent(true);
              int month = Months.of(m.createdAt());
              Instant created = Instant.ofEpochMilli(m.createdAt());
              BatchStatementBuilder hide =
                  BatchStatement.builder(DefaultBatchType.LOGGED)
                      .addStatement(cql.deleteImage().bind(Instant.ofEpochMilli(now), imageId))
                      .addStatement(
                          cql.deleteByDevice().bind(m.deviceId(), month, created, imageId));
              for (String tag : m.tags()) {
                hide.addStatement(cql.deleteByTag().bind(tag, month, created, imageId));
              }
              // the mark first: a mark without a delete is skipped by the sweeper (the image is
              // active), a delete without a mark would keep its blob forever
              return Future.all(client.execute(mark), client.execute(listed))
                  .compose(v -> client.execute(hide.build().setIdempotent(true)))
                  .map(rs -> new ImageDelete.Reply(imageId, due));
            });
  }

  private Future<ShareCreate.Reply> share(ShareCreate.Request r) {
    return get(r.imageId())
        .compose(
            m -> {
              String token = ShareTokens.newToken();
              long expiresAt = System.currentTimeMillis() + r.ttlSeconds() * 1000L;
              return client
                  .execute(
                      cql.insertShare()
                          .bind(
                              ShareTokens.hash(token),
                              r.imageId(),
                              Instant.ofEpochMilli(expiresAt),
                              r.ttlSeconds())
                          .setIdempotent(true))
                  .map(rs -> new ShareCreate.Reply(token, expiresAt));
            });
  }

  /**
   * The shared image while the share lives. Cassandra expires the row at whole seconds, so the
   * stored expiry is checked too: a share is never served at or after its expiresAt.
   */
  private Future<ImageMeta> shared(String token) {
    if (!ShareTokens.wellFormed(token)) {
      return Future.failedFuture(new ImageNotFound("no such share"));
    }
    return read(cql.readShare().bind(ShareTokens.hash(token)))
        .compose(
            row -> {
              if (row == null
                  || row.getInstant(1) == null
                  || row.getInstant(1).toEpochMilli() <= System.currentTimeMillis()) {
                return Future.failedFuture(new ImageNotFound("no such share, or it expired"));
              }
              return get(row.getUuid(0));
            });
  }

  /** An idempotent read at the read consistency: retried and speculated by the driver. */
  private Future<Row> read(Statement<?> s) {
    return client
        .executeWithFullFetch(
            s.setIdempotent(true).setExecutionProfileName(CassandraClients.READ_PROFILE))
        .map(rows -> rows.isEmpty() ? null : rows.get(0));
  }
}
