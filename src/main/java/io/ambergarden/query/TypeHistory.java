package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Recent events of a device type, newest first: the type's non-empty buckets come from its own
 * index (buckets_by_type), so a sparse type is not walked hour by hour through the retention; per
 * bucket, the salt partitions are read in parallel and merged. At most maxBucketsPerPage buckets
 * per page, never past the retention.
 */
final class TypeHistory {
  private final CassandraReads reads;
  private final QueryStatements cql;
  private final TimeBuckets buckets;
  private final AmberConfig config;

  TypeHistory(CassandraReads reads, QueryStatements cql, TimeBuckets buckets, AmberConfig config) {
    this.reads = reads;
    this.cql = cql;
    this.buckets = buckets;
    this.config = config;
  }

  Future<EventPage> page(TypeEventsQuery.Request q) {
    long now = System.currentTimeMillis();
    long from = Math.max(now - config.events().retention().toMillis(), q.from());
    PagePosition pos = q.position();
    long first =
        pos != null
            ? pos.bucket()
            : buckets.bucketOf(now + config.events().futureSkew().toMillis());
    int maxBuckets = config.query().maxBucketsPerPage();
    return reads
        .read(
            cql.bucketsOfType()
                .bind(
                    q.deviceType(),
                    Instant.ofEpochMilli(buckets.bucketOf(from)),
                    Instant.ofEpochMilli(first),
                    maxBuckets + 1))
        .compose(
            rows -> {
              List<Long> starts = rows.stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
              List<Event> items = new ArrayList<>();
              return bucket(q, starts, 0, from, items).map(next -> new EventPage(items, next));
            });
  }

  private Future<PagePosition> bucket(
      TypeEventsQuery.Request q, List<Long> starts, int i, long from, List<Event> items) {
    if (i >= starts.size()) {
      return Future.succeededFuture(null);
    }
    long bucket = starts.get(i);
    if (i >= config.query().maxBucketsPerPage()) {
      return Future.succeededFuture(PagePosition.bucketStart(bucket));
    }
    int want = q.limit() - items.size();
    PagePosition pos = q.position();
    boolean inCursorBucket = pos != null && !pos.atBucketStart() && pos.bucket() == bucket;
    List<Statement<?>> statements = new ArrayList<>();
    Instant b = Instant.ofEpochMilli(bucket);
    for (int salt = 0; salt < config.cassandra().typeSalts(); salt++) {
      if (inCursorBucket) {
        Instant t = Instant.ofEpochMilli(pos.ts());
        statements.add(
            cql.typeSameTs().bind(q.deviceType(), b, salt, t, pos.key1(), pos.key2(), want));
        statements.add(cql.typeBefore().bind(q.deviceType(), b, salt, t, want));
      } else {
        statements.add(cql.typeAll().bind(q.deviceType(), b, salt, want));
      }
    }
    return reads
        .readEach(statements, statements.size())
        .compose(
            results -> {
              List<Row> rows = new ArrayList<>();
              results.forEach(
                  partition ->
                      partition.stream()
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
              return bucket(q, starts, i + 1, from, items);
            });
  }
}
