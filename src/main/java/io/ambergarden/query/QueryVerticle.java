package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DeviceLatestQuery;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.FullFetch;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Serves event reads from the query-first tables. Device history walks the device's non-empty
 * buckets (buckets_by_device) newest first, so empty hours of the retention are never probed.
 */
public final class QueryVerticle extends VerticleBase {
  private final AmberConfig config;
  private final TimeBuckets buckets;
  private CassandraClient client;
  private QueryStatements cql;

  /** Speculative executions of reads go here (the meters, when deployed by the service). */
  private final IntConsumer speculativeReads;

  public QueryVerticle(AmberConfig config) {
    this(config, n -> {});
  }

  public QueryVerticle(AmberConfig config, IntConsumer speculativeReads) {
    this.speculativeReads = speculativeReads;
    this.config = config;
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
  }

  @Override
  public Future<?> start() {
    client = CassandraClients.shared(vertx, config.cassandra());
    return QueryStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              return Future.all(
                  vertx
                      .eventBus()
                      .<DeviceEventsQuery.Request>consumer(
                          DeviceEventsQuery.ADDRESS, m -> answer(m, deviceEvents(m.body())))
                      .completion(),
                  vertx
                      .eventBus()
                      .<DeviceLatestQuery.Request>consumer(
                          DeviceLatestQuery.ADDRESS, this::deviceLatest)
                      .completion(),
                  vertx
                      .eventBus()
                      .<TypeEventsQuery.Request>consumer(
                          TypeEventsQuery.ADDRESS, m -> answer(m, typeEvents(m.body())))
                      .completion());
            });
  }

  private static void answer(Message<?> msg, Future<?> reply) {
    reply
        .onSuccess(msg::reply)
        .onFailure(err -> FailureCode.UNAVAILABLE.fail(msg, "read failed: " + err.getMessage()));
  }

  /**
   * Newest first across the device's buckets (from buckets_by_device, so empty hours are never
   * probed), resuming after the cursor's row. At most maxBucketsPerPage buckets are read per page.
   */
  private Future<EventPage> deviceEvents(DeviceEventsQuery.Request q) {
    PagePosition pos = q.position();
    long upper = pos != null ? pos.bucket() : buckets.bucketOf(q.to() - 1);
    int maxBuckets = config.query().maxBucketsPerPage();
    return read(cql.bucketsOfDevice()
            .bind(
                q.deviceId(),
                Instant.ofEpochMilli(buckets.bucketOf(q.from())),
                Instant.ofEpochMilli(upper),
                maxBuckets + 1))
        .compose(
            rows -> {
              List<Long> starts = rows.stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
              DevicePage page = new DevicePage(q, starts);
              return page.next(0).map(v -> new EventPage(page.items, page.nextPosition()));
            });
  }

  private final class DevicePage {
    final DeviceEventsQuery.Request q;
    final List<Long> starts;
    final List<Event> items = new ArrayList<>();
    long lastBucket;
    int visited;

    DevicePage(DeviceEventsQuery.Request q, List<Long> starts) {
      this.q = q;
      this.starts = starts;
    }

    Future<Void> next(int i) {
      if (i >= starts.size()
          || items.size() >= q.limit()
          || visited >= config.query().maxBucketsPerPage()) {
        return Future.succeededFuture();
      }
      long bucket = starts.get(i);
      visited++;
      Instant b = Instant.ofEpochMilli(bucket);
      Instant from = Instant.ofEpochMilli(q.from());
      PagePosition pos = q.position();
      Future<Void> reads;
      if (pos != null && !pos.atBucketStart() && pos.bucket() == bucket) {
        // the rest of the cursor's bucket: same ts with a later event id, then older ts
        Future<Void> sameTs =
            pos.ts() >= q.from() && pos.ts() < q.to()
                ? add(
                    bucket,
                    cql.eventsSameTs()
                        .bind(
                            q.deviceId(),
                            b,
                            Instant.ofEpochMilli(pos.ts()),
                            pos.key2(),
                            q.limit() - items.size()))
                : Future.succeededFuture();
        reads =
            sameTs.compose(
                v ->
                    items.size() >= q.limit()
                        ? Future.succeededFuture()
                        : add(
                            bucket,
                            cql.eventsInBucket()
                                .bind(
                                    q.deviceId(),
                                    b,
                                    from,
                                    Instant.ofEpochMilli(Math.min(q.to(), pos.ts())),
                                    q.limit() - items.size())));
      } else {
        reads =
            add(
                bucket,
                cql.eventsInBucket()
                    .bind(
                        q.deviceId(),
                        b,
                        from,
                        Instant.ofEpochMilli(q.to()),
                        q.limit() - items.size()));
      }
      return reads.compose(v -> next(i + 1));
    }

    Future<Void> add(long bucket, Statement<?> s) {
      return read(s)
          .map(
              rows -> {
                for (Row r : rows) {
                  items.add(StoredEvents.ofDevice(q.deviceId(), r));
                  lastBucket = bucket;
                }
                return null;
              });
    }

    PagePosition nextPosition() {
      if (items.size() >= q.limit()) {
        Event last = items.get(items.size() - 1);
        return new PagePosition(lastBucket, last.ts(), q.deviceId(), last.eventId());
      }
      // stopped on the bucket budget with buckets left: resume at the next one
      return visited < starts.size() ? PagePosition.bucketStart(starts.get(visited)) : null;
    }
  }

  /**
   * Recent events of a device type, newest first: per bucket, the salt partitions are read in
   * parallel and merged. Walks back from now at most maxBucketsPerPage buckets per page, and never
   * past the retention.
   */
  private Future<EventPage> typeEvents(TypeEventsQuery.Request q) {
    long now = System.currentTimeMillis();
    long from = Math.max(now - config.events().retention().toMillis(), q.from());
    PagePosition pos = q.position();
    long first =
        pos != null
            ? pos.bucket()
            : buckets.bucketOf(now + config.events().futureSkew().toMillis());
    List<Event> items = new ArrayList<>();
    return typeBuckets(q, first, buckets.bucketOf(from), from, items, 0)
        .map(next -> new EventPage(items, next));
  }

  private Future<PagePosition> typeBuckets(
      TypeEventsQuery.Request q,
      long bucket,
      long oldest,
      long from,
      List<Event> items,
      int visited) {
    if (bucket < oldest) {
      return Future.succeededFuture(null);
    }
    if (visited >= config.query().maxBucketsPerPage()) {
      return Future.succeededFuture(PagePosition.bucketStart(bucket));
    }
    int want = q.limit() - items.size();
    PagePosition pos = q.position();
    boolean inCursorBucket = pos != null && !pos.atBucketStart() && pos.bucket() == bucket;
    List<Future<List<Row>>> reads = new ArrayList<>();
    Instant b = Instant.ofEpochMilli(bucket);
    for (int salt = 0; salt < config.cassandra().typeSalts(); salt++) {
      if (inCursorBucket) {
        Instant t = Instant.ofEpochMilli(pos.ts());
        reads.add(
            read(cql.typeSameTs().bind(q.deviceType(), b, salt, t, pos.key1(), pos.key2(), want)));
        reads.add(read(cql.typeBefore().bind(q.deviceType(), b, salt, t, want)));
      } else {
        reads.add(read(cql.typeAll().bind(q.deviceType(), b, salt, want)));
      }
    }
    return Future.all(reads)
        .compose(
            v -> {
              List<Row> rows = new ArrayList<>();
              reads.forEach(
                  f ->
                      f.result().stream()
                          .filter(r -> r.getInstant(0).toEpochMilli() >= from)
                          .forEach(rows::add));
              rows.sort(StoredEvents.TYPE_ORDER);
              Event last = null;
              for (Row r : rows.subList(0, Math.min(want, rows.size()))) {
                last = StoredEvents.ofType(q.deviceType(), r);
                items.add(last);
              }
              if (items.size() >= q.limit() && last != null) {
                return Future.succeededFuture(
                    new PagePosition(bucket, last.ts(), last.deviceId(), last.eventId()));
              }
              return typeBuckets(q, buckets.previous(bucket), oldest, from, items, visited + 1);
            });
  }

  private void deviceLatest(Message<DeviceLatestQuery.Request> msg) {
    String deviceId = msg.body().deviceId();
    read(cql.latestOfDevice().bind(deviceId))
        .onSuccess(
            rows -> {
              if (rows.isEmpty()) {
                FailureCode.NOT_FOUND.fail(msg, "device " + deviceId + " has no event");
              } else {
                msg.reply(StoredEvents.ofDevice(deviceId, rows.get(0)));
              }
            })
        .onFailure(err -> FailureCode.UNAVAILABLE.fail(msg, "read failed: " + err.getMessage()));
  }

  private Future<List<Row>> read(Statement<?> s) {
    return FullFetch.of(
        client,
        s.setExecutionProfileName(CassandraClients.READ_PROFILE).setIdempotent(true),
        speculativeReads);
  }
}
