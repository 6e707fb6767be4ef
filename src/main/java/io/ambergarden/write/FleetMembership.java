package io.ambergarden.write;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which fleet_index and devices_by_hour rows a device's newest event needs. The index changes only
 * when a device's facets change, so this remembers, per device (bounded LRU), the facets last
 * written and when: an unchanged device costs no index write, except a refresh every {@code
 * refreshMillis} of event time (which renews the rows' TTL and repairs a row another writer
 * removed). An event older than the one remembered writes nothing: the index, like
 * latest_by_device, follows event time. A plan is remembered at once, so the next request of the
 * same device plans against it even while its rows are still being written; the writer calls {@link
 * #failed} when they could not be stored, and the device's rows are then rewritten whole. Plain
 * logic.
 */
final class FleetMembership {
  /** Activity rows are refreshed at most this often per device (event time). */
  static final long ACTIVITY_REFRESH_MILLIS = 5 * 60_000L;

  /** What a device's index rows were, as last written by this writer. */
  record Entry(long writeTs, List<String> facets, long refreshedTs, long activityTs) {}

  /**
   * The rows to write for one event: pointers for {@code add} (none when unchanged), deletes for
   * {@code remove}, and the activity row when {@code activity}.
   */
  record Change(
      Event event,
      long writeTs,
      List<String> add,
      List<String> remove,
      boolean activity,
      Entry next) {
    boolean isEmpty() {
      return add.isEmpty() && remove.isEmpty() && !activity;
    }
  }

  private final long refreshMillis;
  private final int cacheSize;
  private final Map<String, Entry> entries;

  FleetMembership(long refreshMillis, int cacheSize) {
    this.refreshMillis = refreshMillis;
    this.cacheSize = cacheSize;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > cacheSize;
          }
        };
  }

  /** The rows the newest event of a device in a write request needs. */
  Change plan(Event e, boolean abnormal) {
    long w = RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId());
    Entry prev = cacheSize == 0 ? null : entries.get(e.deviceId());
    if (prev != null && prev.writeTs() >= w) {
      return new Change(e, w, List.of(), List.of(), false, prev);
    }
    List<String> facets = FleetFacets.of(e.deviceType(), e.status(), abnormal);
    boolean rewrite =
        prev == null
            || !prev.facets().equals(facets)
            || e.ts() - prev.refreshedTs() >= refreshMillis;
    List<String> remove = new ArrayList<>();
    if (prev != null) {
      prev.facets().stream().filter(f -> !facets.contains(f)).forEach(remove::add);
    }
    boolean activity =
        prev == null
            || TimeBuckets.hourOf(e.ts()) != TimeBuckets.hourOf(prev.activityTs())
            || e.ts() - prev.activityTs() >= ACTIVITY_REFRESH_MILLIS;
    Entry next =
        new Entry(
            w,
            facets,
            rewrite ? e.ts() : prev.refreshedTs(),
            activity ? e.ts() : prev.activityTs());
    if (cacheSize > 0) {
      entries.put(e.deviceId(), next);
    }
    return new Change(e, w, rewrite ? facets : List.of(), List.copyOf(remove), activity, next);
  }

  /** Forgets a change whose rows may not be stored, unless a newer one was planned meanwhile. */
  void failed(Change c) {
    if (cacheSize > 0 && entries.get(c.event().deviceId()) == c.next()) {
      entries.remove(c.event().deviceId());
    }
  }
}
