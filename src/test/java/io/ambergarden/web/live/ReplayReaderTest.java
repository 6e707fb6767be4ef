package io.ambergarden.web.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.Event;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayReaderTest {
  static final long NOW = 1_764_000_000_000L;

  static Event ev(String device, String eventId, String type, long ts) {
    return new Event(device, ts, eventId, type, null, null, Map.of(), Map.of(), null);
  }

  @Test
  void aReplaySendsTheMatchingStoredEventsOnceOldestFirst() {
    LiveFilter filter =
        LiveFilter.parse(null, "pump", null, Long.toString(NOW - 10_000), 10, NOW, 86_400_000L);
    Event late = ev("b", "e3", "pump", NOW - 1_000);
    Event first = ev("b", "e1", "pump", NOW - 5_000);
    Event tieA = ev("a", "e2", "pump", NOW - 3_000);
    Event tieB = ev("b", "e2", "pump", NOW - 3_000);
    Event otherType = ev("a", "e4", "valve", NOW - 2_000);
    Event beforeSince = ev("a", "e0", "pump", NOW - 20_000);
    // two reads (a device's and a type's) can return the same stored event
    List<Event> stored = List.of(late, tieB, first, otherType, tieA, late, beforeSince, first);

    assertThat(ReplayReader.matchingOnceOldestFirst(stored, filter))
        .containsExactly(first, tieA, tieB, late);
  }
}
