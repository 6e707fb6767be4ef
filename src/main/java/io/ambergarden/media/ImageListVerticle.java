package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.ImageListQuery;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.util.List;

/**
 * Lists a device's or a tag's images newest first: the month index names the months that hold any,
 * and {@link PageWalk} reads them one after another with keyset paging, skipping deleted images.
 * Every read is idempotent, so the driver retries it and speculates on it.
 */
public final class ImageListVerticle extends VerticleBase {
  private final AmberConfig config;
  private final MeterRegistry registry;
  private CassandraClient client;
  private ImageListStatements cql;
  private Counter partitionReads;

  public ImageListVerticle(AmberConfig config, MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    partitionReads =
        Counter.builder("amber.media.list.reads")
            .description("Partition reads of image lists (month index and month partitions)")
            .register(registry);
    return ImageListStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              return ImageListQuery.ENDPOINT
                  .consumer(
                      vertx,
                      msg ->
                          list(msg.body())
                              .onSuccess(msg::reply)
                              .onFailure(
                                  e ->
                                      FailureCode.UNAVAILABLE.fail(
                                          msg, "image list: " + e.getMessage())))
                  .completion();
            });
  }

  private Future<ImageListQuery.Page> list(ImageListQuery.Request q) {
    int maxPartitions = config.query().maxBucketsPerPage();
    int top = q.position() != null ? (int) q.position().bucket() : Months.of(q.to() - 1);
    Statement<?> months =
        (q.scope() == ImageListQuery.Scope.DEVICE ? cql.deviceMonths() : cql.tagMonths())
            .bind(q.key(), top, Months.of(q.from()), maxPartitions + 1);
    return rows(months)
        .compose(
            rows -> {
              List<Integer> found = rows.stream().map(r -> r.getInt(0)).toList();
              // deleted rows are skipped, so a page may read past its limit, but boundedly
              int maxScanned = q.limit() * 4 + 100;
              PageWalk walk =
                  new PageWalk(
                      found, q.from(), q.to(), q.limit(), maxPartitions, maxScanned, q.position());
              return walk(q, walk)
                  .map(v -> new ImageListQuery.Page(walk.items(), walk.nextPosition()));
            });
  }

  private Future<Void> walk(ImageListQuery.Request q, PageWalk walk) {
    PageWalk.Read read = walk.next();
    if (read == null) {
      return Future.succeededFuture();
    }
    return rows(statement(q, read))
        .compose(
            rows -> {
              walk.accept(
                  rows.stream()
                      .map(
                          r ->
                              q.scope() == ImageListQuery.Scope.DEVICE
                                  ? ImageRows.ofDevice(q.key(), r)
                                  : ImageRows.ofTag(r))
                      .toList());
              return walk(q, walk);
            });
  }

  private Statement<?> statement(ImageListQuery.Request q, PageWalk.Read r) {
    boolean device = q.scope() == ImageListQuery.Scope.DEVICE;
    Instant before = Instant.ofEpochMilli(r.before());
    if (r.beforeId() == null) {
      return (device ? cql.deviceBefore() : cql.tagBefore())
          .bind(q.key(), r.month(), before, r.limit());
    }
    return (device ? cql.deviceBeforeRow() : cql.tagBeforeRow())
        .bind(q.key(), r.month(), before, r.beforeId(), r.limit());
  }

  private Future<List<Row>> rows(Statement<?> s) {
    partitionReads.increment();
    return client.executeWithFullFetch(
        s.setIdempotent(true).setExecutionProfileName(CassandraClients.READ_PROFILE));
  }
}
