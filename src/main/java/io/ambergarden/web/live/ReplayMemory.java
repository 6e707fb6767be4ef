package io.ambergarden.web.live;

import io.ambergarden.event.Event;
import java.util.Collection;

/**
 * What a live-feed replay is charged against live.replay-max-bytes: generous estimates of the heap
 * its events and its dedup identities take, so that many concurrent replays cannot add up to more
 * than the limit.
 */
final class ReplayMemory {
  private ReplayMemory() {}

  /** Object headers, and two bytes per character of the event's strings and payload. */
  static long heapBytes(Event e) {
    long n = 160 + 2L * (e.deviceId().length() + e.eventId().length());
    n += e.deviceType() == null ? 0 : 2L * e.deviceType().length();
    n += e.status() == null ? 0 : 2L * e.status().length();
    n += e.payload() == null ? 0 : 48 + 2L * e.payload().length();
    n += 96L * e.metrics().size();
    for (var t : e.tags().entrySet()) {
      n += 96 + 2L * (t.getKey().length() + t.getValue().length());
    }
    return n;
  }

  /** The identities a replay keeps to drop the live copies of what it replayed. */
  static long identityBytes(Collection<String> identities) {
    long n = 0;
    for (String id : identities) {
      n += 64 + 2L * id.length();
    }
    return n;
  }

  /** A replay that would take the process past live.replay-max-bytes. */
  static final class Busy extends RuntimeException {
    Busy() {
      super("replay memory of this instance is at its limit; try again later", null, false, false);
    }
  }
}
