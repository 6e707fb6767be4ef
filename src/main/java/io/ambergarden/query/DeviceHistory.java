package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.ExportPageQuery;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One device's events, newest first: walks the device's non-empty buckets (buckets_by_device, so
 * empty hours are never probed), reading every partition of a bucket (one for a cold device; the
 * slices' salted partitions too for a hot one, from device_slices) and merging them in clustering
 * order, so a hot device pages exactly like a cold one. At most maxBucketsPerPage buckets per page.
 *
 * <p>An export walks the same way oldest first ({@link #oldestFirst}): buckets ascending, and each
 * partition read in the exact reverse of its clustering order (ts ASC, event_id DESC), which is the
 * only other order Cassandra reads a partition in; the merge, the rounds and the position are the
 * same code with the order turned round.
 */
final class DeviceHistory {
  /** The clustering order of events_by_device: ts DESC, event_id ASC. */
  static final Comparator<Event> ORDER =
      Comparator.comparingLong(Event::ts).reversed().thenComparing(Event::eventId);

  /** An export's order, the exact reverse of {@link #ORDER}: ts ASC, event_id DESC. */
  static final Comparator<Event> OLDEST_FIRST = ORDER.reversed();

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

  /** What one page reads: a device's events in [from, to), from {@code position}, in one order. */
  private record Walk(
      String deviceId, long from, long to, int limit, PagePosition position, boolean oldestFirst) {}

  Future<EventPage> page(DeviceEventsQuery.Request q) {
    return page(new Walk(q.deviceId(), q.from(), q.to(), q.limit(), q.position(), false));
  }

  /** A page of an export: the same walk, oldest first. */
  Future<EventPage> oldestFirst(ExportPageQuery.Request q) {
    return page(new Walk(q.deviceId(), q.from(), q.to(), q.limit(), q.position(), true));
  }

  private Future<EventPage> page(Walk q) {
    PagePosition pos = q.position();
    long first = buckets.bucketOf(q.from());
    long last = buckets.bucketOf(q.to() - 1);
    Instant lower = Instant.ofEpochMilli(pos != null && q.oldestFirst() ? pos.bucket() : first);
    Instant upper = Instant.ofEpochMilli(pos != null && !q.oldestFirst() ? pos.bucket() : last);
    Future<List<Row>> bucketRows =
        reads.read(
            (q.oldestFirst() ? cql.bucketsOfDeviceAsc() : cql.bucketsOfDevice())
                .bind(q.deviceId(), lower, upper, maxBuckets + 1));
    Future<List<Row>> sliceRows = reads.read(cql.slicesOfDevice().bind(q.deviceId(), lower, upper));
    // a first page most often starts in the current bucket of a cold device: read it now, beside
    // the index, and use it if the index agrees (saves one round trip; one wasted read otherwise)
    long current = buckets.bucketOf(Math.min(q.to() - 1, System.currentTimeMillis()));
    Prefetch newest =
        pos == null && !q.oldestFirst() && current >= lower.toEpochMilli()
            ? new Prefetch(current, reads.read(eventsBefore(q, current, q.to(), q.limit())))
            : null;
    return Future.all(bucketRows, sliceRows)
        .compose(
            v -> {
              List<Long> starts =
                  bucketRows.result().stream().map(r -> r.getInstant(0).toEpochMilli()).toList();
              Map<Long, List<DetailSlices.Slice>> slices = SliceRows.byBucket(sliceRows.result());
              Page page = new Page(q, starts, slices, newest);
              return page.next(0).map(x -> new EventPage(page.items, page.nextPosition()));
            });
  }

  /** The read of one detail partition's events in [from, {@code before}), newest first. */
  private Statement<?> eventsBefore(Walk q, long partition, long before, int limit) {
    return cql.eventsInBucket()
        .bind(
            q.deviceId(),
            Instant.ofEpochMilli(partition),
            Instant.ofEpochMilli(q.from()),
            Instant.ofEpochMilli(before),
            limit);
  }

  /** The read of one detail partition's events in [{@code from}, to), oldest first. */
  private Statement<?> eventsFrom(Walk q, long partition, long from, int limit) {
    return cql.eventsInBucketAsc()
        .bind(
            q.deviceId(),
            Instant.ofEpochMilli(partition),
            Instant.ofEpochMilli(from),
            Instant.ofEpochMilli(q.to()),
            limit);
  }

  /** A read of one bucket's own partition started before the page knew it would need it. */
  private record Prefetch(long bucket, Future<List<Row>> rows) {}

  private final class Page {
    final Walk q;
    final Comparator<Event> order;
    final List<Long> starts;
    final Map<Long, List<DetailSlices.Slice>> slices;
    final List<Event> items = new ArrayList<>();
    Prefetch prefetch;
    long lastBucket;
    int visited;

    Page(Walk q, List<Long> starts, Map<Long, List<DetailSlices.Slice>> s, Prefetch prefetch) {
      this.q = q;
      this.order = q.oldestFirst() ? OLDEST_FIRST : ORDER;
      this.starts = starts;
      this.slices = s;
      this.prefetch = prefetch;
    }

    /**
     * The prefetched rows when this fill is the read they were started for, else null. Only a first
     * page prefetches and its first fill asks first (no position, nothing read yet, the whole
     * limit), so what can differ is the bucket and whether it has slices.
     */
    private Future<List<List<Row>>> prefetched(long bucket, List<Long> partitions) {
      Prefetch p = prefetch;
      prefetch = null;
      return p != null && p.bucket() == bucket && partitions.equals(List.of(bucket))
          ? p.rows().map(List::of)
          : null;
    }

    Future<Void> next(int i) {
      if (i >= starts.size() || items.size() >= q.limit() || visited >= maxBuckets) {
        return Future.succeededFuture();
      }
      long bucket = starts.get(i);
      visited++;
      List<Long> partitions =
          DetailSlices.partitionsOf(bucket, slices.getOrDefault(bucket, List.of()));
      PagePosition pos = q.position();
      Event after =
          pos != null && !pos.atBucketStart() && pos.bucket() == bucket
              ? new Event(q.deviceId(), pos.ts(), pos.key2())
              : null;
      return fill(bucket, partitions, after).compose(v -> next(i + 1));
    }

    /**
     * Adds the bucket's events after {@code after}. Several partitions are read with a share of the
     * page each and merged; what is merged is complete only up to the oldest row every partition
     * that filled its share has reached, so the rest comes in another round from there.
     */
    Future<Void> fill(long bucket, List<Long> partitions, Event after) {
      int want = q.limit() - items.size();
      if (want <= 0) {
        return Future.succeededFuture();
      }
      int share =
          partitions.size() == 1
              ? want
              : Math.min(
                  want, Math.max(16, 2 * ((want + partitions.size() - 1) / partitions.size())));
      return readPartitions(bucket, partitions, after, share)
          .compose(
              results -> {
                List<Event> merged = new ArrayList<>();
                Event bound = null;
                int r = 0;
                for (int p = 0; p < partitions.size(); p++) {
                  // a partition's reads: [same ts after the position,] then older ts
                  List<Event> same =
                      after != null && statementsPerPartition(after) == 2
                          ? events(results.get(r++))
                          : List.of();
                  List<Event> older = events(results.get(r++));
                  List<Event> prefix = new ArrayList<>(same);
                  boolean truncated = same.size() >= share;
                  if (!truncated) {
                    prefix.addAll(older);
                    truncated = older.size() >= share;
                  }
                  merged.addAll(prefix);
                  if (truncated) {
                    Event last = prefix.get(prefix.size() - 1);
                    bound = bound == null || order.compare(last, bound) < 0 ? last : bound;
                  }
                }
                merged.sort(order);
                Event previous = null;
                for (Event e : merged) {
                  if (items.size() >= q.limit() || (bound != null && order.compare(e, bound) > 0)) {
                    break;
                  }
                  // a redelivery racing a slice split can store an event twice; it is served once
                  if (previous == null || order.compare(previous, e) != 0) {
                    items.add(e);
                    lastBucket = bucket;
                  }
                  previous = e;
                }
                return bound != null && items.size() < q.limit()
                    ? fill(bucket, partitions, bound)
                    : Future.succeededFuture();
              });
    }

    /** The reads of a fill: the prefetched rows when they are this fill's, else every partition. */
    private Future<List<List<Row>>> readPartitions(
        long bucket, List<Long> partitions, Event after, int share) {
      Future<List<List<Row>>> read = prefetched(bucket, partitions);
      if (read != null) {
        return read;
      }
      List<Statement<?>> statements = new ArrayList<>();
      for (long partition : partitions) {
        statements.addAll(partitionReads(partition, after, share));
      }
      return reads.readEach(statements, PARALLELISM);
    }

    private List<Event> events(List<Row> rows) {
      List<Event> out = new ArrayList<>(rows.size());
      rows.forEach(r -> out.add(StoredEvents.ofDevice(q.deviceId(), r)));
      return out;
    }

    private int statementsPerPartition(Event after) {
      return after.ts() >= q.from() && after.ts() < q.to() ? 2 : 1;
    }

    /** The reads of one partition: after {@code after} when given, else the whole range. */
    List<Statement<?>> partitionReads(long partition, Event after, int limit) {
      if (after == null) {
        return List.of(
            q.oldestFirst()
                ? eventsFrom(q, partition, q.from(), limit)
                : eventsBefore(q, partition, q.to(), limit));
      }
      List<Statement<?>> out = new ArrayList<>(2);
      // same ts with a later event id in the walk's order, then older (newer) ts
      if (statementsPerPartition(after) == 2) {
        out.add(
            (q.oldestFirst() ? cql.eventsSameTsAsc() : cql.eventsSameTs())
                .bind(
                    q.deviceId(),
                    Instant.ofEpochMilli(partition),
                    Instant.ofEpochMilli(after.ts()),
                    after.eventId(),
                    limit));
      }
      out.add(
          q.oldestFirst()
              ? eventsFrom(q, partition, Math.max(q.from(), after.ts() + 1), limit)
              : eventsBefore(q, partition, Math.min(q.to(), after.ts()), limit));
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
