package io.ambergarden.write;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which fleet_index and devices_by_hour rows a device's newest event needs. The index changes only
 * when a device's facets change, so this remembers, per device (bounded LRU), the facets last
 * written and when: an unchanged device costs no index write and a change writes only the facets
 * entered and deletes the ones left, except a refresh of every facet every {@code refreshMillis} of
 * event time (which renews the rows' TTL and repairs a row another writer removed). An event older
 * than the one remembered writes nothing: the index, like latest_by_device, follows event time. A
 * plan is remembered at once, so the next request of the same device plans against it even while
 * its rows are still being written; the writer calls {@link #failed} when they could not be stored,
 * and the device's rows are then rewritten whole. Plain logic.
 */
final class FleetMembership {
  /** Activity rows are refreshed at most this often per device (event time). */
  static final long ACTIVITY_REFRESH_MILLIS = 5 * 60_000L;

  /** Distinct type and status values kept once each (they repeat across devices), bounded. */
  static final int MAX_INTERNED = 10_000;

  /**
   * What a device's index rows were, as last written by this writer: the state that names its
   * facets (about 60 bytes per device, type and status strings shared).
   */
  record Entry(
      long writeTs,
      String type,
      String status,
      boolean abnormal,
      long refreshedTs,
      long activityTs) {
    List<String> facets() {
      return FleetFacets.of(type, status, abnormal);
    }
  }

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
  private final Map<String, String> interned = new java.util.HashMap<>();

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
    // a refresh rewrites every facet; a change writes only the facets the device entered
    boolean refresh = prev == null || e.ts() - prev.refreshedTs() >= refreshMillis;
    List<String> before = prev == null ? List.of() : prev.facets();
    List<String> add = refresh ? facets : facets.stream().filter(f -> !before.contains(f)).toList();
    List<String> remove = before.stream().filter(f -> !facets.contains(f)).toList();
    boolean activity =
        prev == null
            || TimeBuckets.hourOf(e.ts()) != TimeBuckets.hourOf(prev.activityTs())
            || e.ts() - prev.activityTs() >= ACTIVITY_REFRESH_MILLIS;
    Entry next =
        new Entry(
            w,
            intern(e.deviceType()),
            intern(e.status()),
            abnormal,
            refresh ? e.ts() : prev.refreshedTs(),
            activity ? e.ts() : prev.activityTs());
    if (cacheSize > 0) {
      entries.put(e.deviceId(), next);
    }
    return new Change(e, w, add, remove, activity, next);
  }

  private String intern(String v) {
    if (v == null) {
      return null;
    }
    String known = interned.get(v);
    if (known != null) {
      return known;
    }
    if (interned.size() < MAX_INTERNED) {
      interned.put(v, v);
    }
    return v;
  }

  /** Forgets a change whose rows may not be stored, unless a newer one was planned meanwhile. */
  void failed(Change c) {
    if (cacheSize > 0 && entries.get(c.event().deviceId()) == c.next()) {
      entries.remove(c.event().deviceId());
    }
  }
}
