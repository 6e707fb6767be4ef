package io.ambergarden.write;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.cassandra.FleetPointers;
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
 * written and when: an unchanged device costs no index write and a change writes only the facets
 * entered, except a refresh of every facet every {@code refreshMillis} of event time (which renews
 * the rows' TTL). An event older than the one remembered writes nothing: the index, like
 * latest_by_device, follows event time.
 *
 * <p>Other writers may handle events of the same device (direct-mode instances, a partition that
 * moved), and this writer cannot see them. Skipping an unchanged facet trusts the pointer this
 * writer wrote, so no delete may remove it while it is trusted: a pointer is trusted for less than
 * one refresh after its write, and every delete reaches only one refresh back ({@link
 * FleetPointers}). A facet the device left is therefore deleted at the device's first event one
 * refresh after it left, unless the device is back in it by then; until then a read skips it.
 *
 * <p>A plan's facets are remembered at once, so the next request of the same device plans against
 * them even while its rows are still being written; the writer calls {@link #failed} when they
 * could not be stored, and the device's rows are then rewritten whole. The activity row counts only
 * once stored ({@link #stored}): a request planned on top of a failing one must still write it,
 * since a refused HTTP request may never be sent again. Plain logic.
 */
final class FleetMembership {
  /** Activity rows are refreshed at most this often per device (event time). */
  static final long ACTIVITY_REFRESH_MILLIS = 5 * 60_000L;

  /** No activity row of the device stored yet by this writer. */
  static final long NO_ACTIVITY = Long.MIN_VALUE;

  /** Distinct type and status values kept once each (they repeat across devices), bounded. */
  static final int MAX_INTERNED = 10_000;

  /** Facets left and not yet deleted, per device; beyond this the oldest are left to the reads. */
  static final int MAX_LEFT = 16;

  /**
   * A facet the device left, and the write time of the event that left it: every pointer this
   * writer wrote for it is older.
   */
  record Left(String facet, long leftTs) {}

  /**
   * What a device's index rows were, as last written by this writer: the state that names its
   * facets (about 60 bytes per device, type and status strings shared), when every facet was last
   * written, the event time of the newest activity row stored ({@link #NO_ACTIVITY} before one is),
   * and the facets left whose delete is not due yet.
   */
  record Entry(
      long writeTs,
      String type,
      String status,
      boolean abnormal,
      long refreshedWriteTs,
      long activityTs,
      List<Left> left) {
    List<String> facets() {
      return FleetFacets.of(type, status, abnormal);
    }

    Entry withActivityTs(long ts) {
      return new Entry(writeTs, type, status, abnormal, refreshedWriteTs, ts, left);
    }
  }

  /**
   * The rows to write for one event: pointers for {@code add} at {@code writeTs} (none when
   * unchanged), deletes for {@code remove} at {@code deleteTs}, and the activity row when {@code
   * activity}.
   */
  record Change(
      Event event,
      long writeTs,
      long deleteTs,
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
    long deleteTs = FleetPointers.deleteTs(w, refreshMillis);
    Entry prev = cacheSize == 0 ? null : entries.get(e.deviceId());
    if (prev != null && prev.writeTs() >= w) {
      return new Change(e, w, deleteTs, List.of(), List.of(), false, prev);
    }
    List<String> facets = FleetFacets.of(e.deviceType(), e.status(), abnormal);
    // a refresh rewrites every facet; a change writes only the facets the device entered. Trusting
    // the rest is safe only while no delete can reach them: less than one refresh since written
    boolean refresh = prev == null || deleteTs >= prev.refreshedWriteTs();
    List<String> before = prev == null ? List.of() : prev.facets();
    List<String> add = refresh ? facets : facets.stream().filter(f -> !before.contains(f)).toList();
    List<Left> left = new ArrayList<>();
    List<String> remove = new ArrayList<>();
    if (prev != null) {
      for (Left l : prev.left()) {
        if (facets.contains(l.facet())) {
          continue; // back in it: the pointer was just written again, or is still trusted
        }
        if (l.leftTs() <= deleteTs) {
          remove.add(l.facet());
        } else {
          left.add(l);
        }
      }
      before.stream().filter(f -> !facets.contains(f)).forEach(f -> left.add(new Left(f, w)));
    }
    // against the activity rows stored, not planned: a request in flight may still fail, and an
    // HTTP one is not always sent again, so every request writes the row until one has stored it
    boolean activity =
        prev == null
            || prev.activityTs() == NO_ACTIVITY
            || TimeBuckets.hourOf(e.ts()) != TimeBuckets.hourOf(prev.activityTs())
            || e.ts() - prev.activityTs() >= ACTIVITY_REFRESH_MILLIS;
    Entry next =
        new Entry(
            w,
            intern(e.deviceType()),
            intern(e.status()),
            abnormal,
            refresh ? w : prev.refreshedWriteTs(),
            prev == null ? NO_ACTIVITY : prev.activityTs(),
            left.isEmpty()
                ? List.of()
                : List.copyOf(left.subList(Math.max(0, left.size() - MAX_LEFT), left.size())));
    if (cacheSize > 0) {
      entries.put(e.deviceId(), next);
    }
    return new Change(e, w, deleteTs, add, List.copyOf(remove), activity, next);
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

  /** The rows of a change were stored: its activity row now counts for the device. */
  void stored(Change c) {
    if (!c.activity()) {
      return;
    }
    long ts = c.event().ts();
    entries.computeIfPresent(
        c.event().deviceId(), (k, cur) -> cur.activityTs() >= ts ? cur : cur.withActivityTs(ts));
  }

  /**
   * Forgets the device of a change whose rows may not be stored, also when a newer change was
   * planned on top of it meanwhile (that one may have skipped the rows this one failed to write):
   * its next event, or this one sent again, writes every facet.
   */
  void failed(Change c) {
    entries.remove(c.event().deviceId());
  }
}
