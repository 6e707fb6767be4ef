package io.ambergarden.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.cassandra.FleetPointers;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Several writers of one device, each with its own {@link FleetMembership}, against a model of the
 * device's fleet_index rows as Cassandra keeps them (the newest timestamp wins, a delete wins a
 * tie), with the reads' repair of stale pointers. Whichever writer handles which event, in whatever
 * order, every facet of the device's newest event must keep its pointer.
 */
class FleetWritersTest {
  static final long T0 = 1_767_225_600_000L;
  static final long REFRESH = 60_000L;
  static final String TYPE = "charger";

  /** One device's fleet_index rows: per facet the newest write and the newest delete. */
  static final class Index {
    final Map<String, Long> written = new HashMap<>();
    final Map<String, Long> deleted = new HashMap<>();

    void apply(FleetMembership.Change c) {
      c.add().forEach(f -> written.merge(f, c.writeTs(), Math::max));
      c.remove().forEach(f -> deleted.merge(f, c.deleteTs(), Math::max));
    }

    boolean present(String facet) {
      Long w = written.get(facet);
      return w != null && w > deleted.getOrDefault(facet, Long.MIN_VALUE);
    }

    Set<String> present() {
      Set<String> out = new TreeSet<>();
      written.keySet().stream().filter(this::present).forEach(out::add);
      return out;
    }

    /** FleetReader's repair, read while {@code state} is the newest event stored. */
    void readRepair(Event state) {
      List<String> facets = facets(state);
      long stateTs = RowKeys.eventTimeWriteTimestamp(state.ts(), state.eventId());
      for (String f : present()) {
        if (!facets.contains(f) && removable(written.get(f), stateTs)) {
          deleted.merge(f, written.get(f), Math::max);
        }
      }
    }

    static boolean removable(long pointerTs, long stateTs) {
      return pointerTs <= FleetPointers.deleteTs(stateTs, REFRESH);
    }
  }

  static Event event(long ts, String status) {
    return new Event("D-1", ts, "e" + ts, TYPE, status, null, Map.of(), Map.of(), null);
  }

  static boolean abnormal(Event e) {
    return "fault".equals(e.status());
  }

  static List<String> facets(Event e) {
    return FleetFacets.of(e.deviceType(), e.status(), abnormal(e));
  }

  static void handle(FleetMembership writer, Index index, Event e) {
    index.apply(writer.plan(e, abnormal(e)));
  }

  static FleetMembership writer() {
    return new FleetMembership(REFRESH, 100);
  }

  @Test
  void aWriterThatMissedTheDeviceLeavingAFacetStillFindsItsPointerWhenTheDeviceComesBack() {
    FleetMembership a = writer();
    FleetMembership b = writer();
    Index index = new Index();
    handle(a, index, event(T0, "normal"));
    handle(b, index, event(T0 + 1000, "normal"));
    // a sees the device leave "normal"; b does not, and later sees it back in "normal" unchanged
    handle(a, index, event(T0 + 2000, "fault"));
    Event newest = event(T0 + 3000, "normal");
    handle(b, index, newest);
    assertThat(index.present()).containsAll(facets(newest));
  }

  @Test
  void aPartitionThatMovesAwayAndBackLeavesTheFirstOwnerNoPointerToTrustThatWasRemoved() {
    // kafka: the partition moves a -> b -> a; b has never seen the device, a still remembers it
    FleetMembership a = writer();
    FleetMembership b = writer();
    Index index = new Index();
    handle(a, index, event(T0, "normal"));
    Event left = event(T0 + 1000, "fault");
    handle(b, index, left);
    // a fleet read while b's event is the newest finds the "normal" pointers stale
    index.readRepair(left);
    Event newest = event(T0 + 2000, "normal");
    handle(a, index, newest);
    assertThat(index.present()).containsAll(facets(newest));
  }

  @Test
  void aNewOwnerWhoseFirstEventIsOlderThanThePreviousOwnersNewestKeepsItsPointers() {
    FleetMembership a = writer();
    FleetMembership b = writer();
    Index index = new Index();
    handle(a, index, event(T0, "normal"));
    handle(a, index, event(T0 + 5000, "fault"));
    // the partition moves; b's first event of the device is an older one, delivered late
    handle(b, index, event(T0 + 3000, "normal"));
    Event newest = event(T0 + 6000, "normal");
    handle(b, index, newest);
    assertThat(index.present()).containsAll(facets(newest));
  }

  @Test
  void aSingleWriterStillDeletesWhatTheDeviceLeft() {
    FleetMembership a = writer();
    Index index = new Index();
    handle(a, index, event(T0, "normal"));
    handle(a, index, event(T0 + 1000, "fault"));
    for (long t = T0 + 2000; t <= T0 + 2 * REFRESH; t += 10_000) {
      handle(a, index, event(t, "fault"));
    }
    assertThat(index.present()).containsExactlyInAnyOrderElementsOf(facets(event(T0, "fault")));
  }

  @Test
  void anyInterleavingOfWritersEventOrderAndRepairsKeepsEveryFacetOfTheNewestEvent() {
    String[] statuses = {"normal", "fault", "idle"};
    for (int seed = 0; seed < 3000; seed++) {
      Random r = new Random(seed);
      int writers = 2 + r.nextInt(2);
      List<FleetMembership> w = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        w.add(writer());
      }
      Index index = new Index();
      List<Event> events = new ArrayList<>();
      int n = 3 + r.nextInt(12);
      long t = T0;
      for (int i = 0; i < n; i++) {
        t += 1 + r.nextInt(r.nextBoolean() ? 2_000 : 40_000);
        events.add(event(t, statuses[r.nextInt(statuses.length)]));
      }
      // handled in an order close to event time, some late
      List<Event> order = new ArrayList<>(events);
      for (int i = 0; i < order.size() - 1; i++) {
        if (r.nextInt(4) == 0) {
          java.util.Collections.swap(order, i, i + 1);
        }
      }
      Event newestSoFar = null;
      StringBuilder trace = new StringBuilder();
      for (Event e : order) {
        int k = r.nextInt(writers);
        handle(w.get(k), index, e);
        newestSoFar = newestSoFar == null || newestSoFar.ts() < e.ts() ? e : newestSoFar;
        trace.append(' ').append(k).append(':').append(e.ts() - T0).append(e.status());
        if (r.nextInt(3) == 0) {
          index.readRepair(newestSoFar);
          trace.append(" read");
        }
      }
      assertThat(index.present()).as("seed %d:%s", seed, trace).containsAll(facets(newestSoFar));
    }
  }
}
