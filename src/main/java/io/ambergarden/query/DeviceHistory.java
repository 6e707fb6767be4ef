package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One device's events, newest first: walks the device's non-empty buckets (buckets_by_device, so
 * empty hours are never probed), reading every partition of a bucket (one for a cold device; the
 * slices' salted partitions too for a hot one, from device_slices) and merging them in clustering
 * order, so a hot device pages exactly like a cold one. At most maxBucketsPerPage buckets per page.
 */
final class DeviceHistory {
  /** The clustering order of events_by_device: ts DESC, event_id ASC. */
  static final Comparator<Event> ORDER =
      Comparator.comparingLong(Event::ts).reversed().thenComparing(Event::eventId);

  /** Partition reads of one bucket in flight at once. */
  private static final int PARALLELISM = 16;

  private final CassandraReads reads;
  private final QueryStatements cql;
  private final TimeBuckets buckets;
  private final int maxBuckets;

  DeviceHistory(CassandraReads reads, QueryStatements cql, TimeBuckets buckets, int maxBuckets) {
    this.reads = reads;
    this.cql = cql;
    this.buckets = buckets;
    this.maxBuckets = maxBuckets;
  }

  Future<EventPage> page(DeviceEventsQuery.Request q) {
    PagePosition pos = q.position();
    Instant lower = Instant.ofEpochMilli(buckets.bucketOf(q.from()));
    Instant upper = Instant.ofEpochMilli(pos != null ? pos.bucket() : buckets.bucketOf(q.to() - 1));
    Future<List<Row>> bucketRows =
        reads.read(cql.bucketsOfDevice().bind(q.deviceId(), lower, upper, maxBuckets + 1));
    Future<List<Row>> sliceRows = reads.read(cql.slicesOfDevice().bind(q.deviceId(), lower, upper));
    return Future.all(bucketRows, sliceRows)
        .compose(
            v -> {
              List<Long> starts =
                  bucketRows.result().stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
              Map<Long, List<DetailSlices.Slice>> slices = new HashMap<>();
              for (Row r : sliceRows.result()) {
                slices
                    .computeIfAbsent(r.getInstant(0).toEpochMilli(), b -> new ArrayList<>())
                    .add(new DetailSlices.Slice(r.getInstant(1).toEpochMilli(), r.getInt(2)));
              }
              Page page = new Page(q, starts, slices);
              return page.next(0).map(x -> new EventPage(page.items, page.nextPosition()));
            });
  }

  private final class Page {
    final DeviceEventsQuery.Request q;
    final List<Long> starts;
    final Map<Long, List<DetailSlices.Slice>> slices;
    final List<Event> items = new ArrayList<>();
    long lastBucket;
    int visited;

    Page(DeviceEventsQuery.Request q, List<Long> starts, Map<Long, List<DetailSlices.Slice>> s) {
      this.q = q;
      this.starts = starts;
      this.slices = s;
    }

    Future<Void> next(int i) {
      if (i >= starts.size() || items.size() >= q.limit() || visited >= maxBuckets) {
        return Future.succeededFuture();
      }
      long bucket = starts.get(i);
      visited++;
      int want = q.limit() - items.size();
      List<Statement<?>> statements = new ArrayList<>();
      for (long partition :
          DetailSlices.partitionsOf(bucket, slices.getOrDefault(bucket, List.of()))) {
        statements.addAll(partitionReads(bucket, partition, want));
      }
      return reads
          .readEach(statements, PARALLELISM)
          .map(
              results -> {
                List<Event> merged = new ArrayList<>();
                results.forEach(
                    rows -> rows.forEach(r -> merged.add(StoredEvents.ofDevice(q.deviceId(), r))));
                merged.sort(ORDER);
                Event previous = null;
                for (Event e : merged) {
                  if (items.size() >= q.limit()) {
                    break;
                  }
                  // a redelivery racing a slice split can store an event twice; it is served once
                  if (previous != null
                      && previous.ts() == e.ts()
                      && previous.eventId().equals(e.eventId())) {
                    continue;
                  }
                  items.add(e);
                  previous = e;
                  lastBucket = bucket;
                }
                return null;
              })
          .compose(x -> next(i + 1));
    }

    /** The reads of one partition: after the cursor's row when the cursor is in this bucket. */
    List<Statement<?>> partitionReads(long bucket, long partition, int want) {
      Instant p = Instant.ofEpochMilli(partition);
      Instant from = Instant.ofEpochMilli(q.from());
      PagePosition pos = q.position();
      if (pos == null || pos.atBucketStart() || pos.bucket() != bucket) {
        return List.of(
            cql.eventsInBucket().bind(q.deviceId(), p, from, Instant.ofEpochMilli(q.to()), want));
      }
      List<Statement<?>> out = new ArrayList<>(2);
      // the rest of the cursor's bucket: same ts with a later event id, then older ts
      if (pos.ts() >= q.from() && pos.ts() < q.to()) {
        out.add(
            cql.eventsSameTs()
                .bind(q.deviceId(), p, Instant.ofEpochMilli(pos.ts()), pos.key2(), want));
      }
      out.add(
          cql.eventsInBucket()
              .bind(q.deviceId(), p, from, Instant.ofEpochMilli(Math.min(q.to(), pos.ts())), want));
      return out;
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
}
