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
 * bucket, the salt partitions of the slim events_by_type index are read in parallel and merged, and
 * the events they name are fetched from events_by_device ({@link DetailLookup}). At most
 * maxBucketsPerPage buckets per page, never past the retention.
 */
final class TypeHistory {
  private final CassandraReads reads;
  private final QueryStatements cql;
  private final TimeBuckets buckets;
  private final AmberConfig config;
  private final DetailLookup details;

  TypeHistory(CassandraReads reads, QueryStatements cql, TimeBuckets buckets, AmberConfig config) {
    this.reads = reads;
    this.cql = cql;
    this.details = new DetailLookup(reads, cql);
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
              return bucket(q, starts, 0, from, items, pos).map(next -> new EventPage(items, next));
            });
  }

  /**
   * Fills {@code items} from bucket {@code i} on, reading index rows after {@code after} (null:
   * from the bucket's start) and their events from the detail table; the position to resume from,
   * or null when nothing is left.
   */
  private Future<PagePosition> bucket(
      TypeEventsQuery.Request q,
      List<Long> starts,
      int i,
      long from,
      List<Event> items,
      PagePosition after) {
    if (i >= starts.size()) {
      return Future.succeededFuture(null);
    }
    long bucket = starts.get(i);
    if (i >= config.query().maxBucketsPerPage()) {
      return Future.succeededFuture(PagePosition.bucketStart(bucket));
    }
    int want = q.limit() - items.size();
    boolean inCursorBucket = after != null && !after.atBucketStart() && after.bucket() == bucket;
    List<Statement<?>> statements = new ArrayList<>();
    Instant b = Instant.ofEpochMilli(bucket);
    for (int salt = 0; salt < config.cassandra().typeSalts(); salt++) {
      if (inCursorBucket) {
        Instant t = Instant.ofEpochMilli(after.ts());
        statements.add(
            cql.typeSameTs().bind(q.deviceType(), b, salt, t, after.key1(), after.key2(), want));
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
              List<DetailLookup.Entry> entries =
                  rows.subList(0, Math.min(want, rows.size())).stream()
                      .map(StoredEvents::indexEntry)
                      .toList();
              return details
                  .events(q.deviceType(), bucket, entries)
                  .compose(found -> next(q, starts, i, from, items, entries, found, want));
            });
  }

  /** Serves what was found; reads on in this bucket when rows were skipped, else the next one. */
  private Future<PagePosition> next(
      TypeEventsQuery.Request q,
      List<Long> starts,
      int i,
      long from,
      List<Event> items,
      List<DetailLookup.Entry> entries,
      List<Event> found,
      int want) {
    long bucket = starts.get(i);
    items.addAll(found);
    if (items.size() >= q.limit() && !found.isEmpty()) {
      Event last = found.get(found.size() - 1);
      return Future.succeededFuture(
          new PagePosition(bucket, last.ts(), last.deviceId(), last.eventId()));
    }
    if (entries.size() >= want) {
      // a full read, but some index rows had no event any more: the bucket may hold more
      DetailLookup.Entry end = entries.get(entries.size() - 1);
      return bucket(
          q,
          starts,
          i,
          from,
          items,
          new PagePosition(bucket, end.ts(), end.deviceId(), end.eventId()));
    }
    return bucket(q, starts, i + 1, from, items, null);
  }
}
