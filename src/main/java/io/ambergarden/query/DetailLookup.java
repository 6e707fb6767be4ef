package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.event.Event;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fetches the events that rows of the slim events_by_type index name, from events_by_device by
 * their full primary key, in the rows' order. An index row whose event is gone (its detail row
 * expired a moment earlier) is skipped. The reads run {@link #PARALLELISM} at a time; a caller asks
 * for at most one page of rows (query.max-limit).
 */
final class DetailLookup {
  /** Point reads in flight per lookup. */
  static final int PARALLELISM = 64;

  /**
   * An index row: an event's keys, and its detail partition when it is not the bucket's own (null
   * for the bucket's own, and for rows written before schema 7).
   */
  record Entry(long ts, String deviceId, String eventId, Long detailBucket) {
    long partition(long bucket) {
      return detailBucket == null ? bucket : detailBucket;
    }
  }

  private final CassandraReads reads;
  private final QueryStatements cql;

  DetailLookup(CassandraReads reads, QueryStatements cql) {
    this.reads = reads;
    this.cql = cql;
  }

  /** The events of {@code entries} (all of one type bucket), in order, without the missing ones. */
  Future<List<Event>> events(String deviceType, long bucket, List<Entry> entries) {
    List<Statement<?>> lookups = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      lookups.add(byKey(e, e.partition(bucket)));
    }
    return reads
        .readEach(lookups, PARALLELISM)
        .compose(
            found -> {
              Map<Integer, Row> rows = new HashMap<>();
              List<Integer> unplaced = new ArrayList<>();
              for (int i = 0; i < entries.size(); i++) {
                if (!found.get(i).isEmpty()) {
                  rows.put(i, found.get(i).get(0));
                } else if (entries.get(i).detailBucket() == null) {
                  unplaced.add(i);
                }
              }
              return inSlices(bucket, entries, unplaced, rows)
                  .map(v -> inOrder(deviceType, entries, rows));
            });
  }

  /**
   * Rows written before schema 7 do not name a hot device's slice: a miss in the bucket's own
   * partition is looked up once more where the device's slices place it. Only misses pay for this.
   */
  private Future<Void> inSlices(
      long bucket, List<Entry> entries, List<Integer> unplaced, Map<Integer, Row> rows) {
    if (unplaced.isEmpty()) {
      return Future.succeededFuture();
    }
    Set<String> devices = new LinkedHashSet<>();
    unplaced.forEach(i -> devices.add(entries.get(i).deviceId()));
    List<String> deviceList = new ArrayList<>(devices);
    Instant b = Instant.ofEpochMilli(bucket);
    List<Statement<?>> sliceReads = new ArrayList<>();
    deviceList.forEach(d -> sliceReads.add(cql.slicesOfDevice().bind(d, b, b)));
    return reads
        .readEach(sliceReads, PARALLELISM)
        .compose(
            sliceRows -> {
              Map<String, List<DetailSlices.Slice>> slices = new HashMap<>();
              for (int d = 0; d < deviceList.size(); d++) {
                slices.put(
                    deviceList.get(d),
                    SliceRows.byBucket(sliceRows.get(d)).getOrDefault(bucket, List.of()));
              }
              List<Integer> retried = new ArrayList<>();
              List<Statement<?>> lookups = new ArrayList<>();
              for (int i : unplaced) {
                Entry e = entries.get(i);
                long partition =
                    DetailSlices.partitionOf(bucket, slices.get(e.deviceId()), e.ts(), e.eventId());
                if (partition != bucket) {
                  retried.add(i);
                  lookups.add(byKey(e, partition));
                }
              }
              return reads
                  .readEach(lookups, PARALLELISM)
                  .map(
                      found -> {
                        for (int k = 0; k < retried.size(); k++) {
                          if (!found.get(k).isEmpty()) {
                            rows.put(retried.get(k), found.get(k).get(0));
                          }
                        }
                        return null;
                      });
            });
  }

  private Statement<?> byKey(Entry e, long partition) {
    return cql.eventByKey()
        .bind(
            e.deviceId(),
            Instant.ofEpochMilli(partition),
            Instant.ofEpochMilli(e.ts()),
            e.eventId());
  }

  private static List<Event> inOrder(
      String deviceType, List<Entry> entries, Map<Integer, Row> rows) {
    List<Event> out = new ArrayList<>(rows.size());
    for (int i = 0; i < entries.size(); i++) {
      Row r = rows.get(i);
      if (r != null) {
        out.add(StoredEvents.ofType(deviceType, entries.get(i).deviceId(), r));
      }
    }
    return out;
  }
}
