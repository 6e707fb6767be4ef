package io.ambergarden.live;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The other instances on the live topic, known from the records they produce to it: each instance
 * announces itself there once per presence interval, and each of its event records counts as well.
 * An instance that has seen no other within the timeout need not produce its events to the topic:
 * the broker would store them and only this instance would read them back, to skip them. For one
 * timeout after start, before an announcement could have been seen, peers are assumed. At most
 * {@code maxPeers} are remembered, the longest unseen forgotten first. Plain logic, used on one
 * event loop with a monotonic clock.
 */
final class LivePeers {
  private final long startMillis;
  private final long timeoutMillis;
  private final int maxPeers;

  /** Last seen, per instance, least recently seen first. */
  private final LinkedHashMap<String, Long> lastSeen = new LinkedHashMap<>();

  LivePeers(long startMillis, long timeoutMillis, int maxPeers) {
    if (timeoutMillis <= 0 || maxPeers <= 0) {
      throw new IllegalArgumentException("timeout and peers must be positive");
    }
    this.startMillis = startMillis;
    this.timeoutMillis = timeoutMillis;
    this.maxPeers = maxPeers;
  }

  /** A record of another instance was read. */
  void seen(String instance, long nowMillis) {
    lastSeen.remove(instance);
    lastSeen.put(instance, nowMillis);
    if (lastSeen.size() > maxPeers) {
      Iterator<String> eldest = lastSeen.keySet().iterator();
      eldest.next();
      eldest.remove();
    }
  }

  /** Other instances seen within the timeout. */
  int count(long nowMillis) {
    Iterator<Map.Entry<String, Long>> it = lastSeen.entrySet().iterator();
    while (it.hasNext() && nowMillis - it.next().getValue() >= timeoutMillis) {
      it.remove();
    }
    return lastSeen.size();
  }

  /** Whether events should go to the topic: another instance may read them. */
  boolean shared(long nowMillis) {
    return nowMillis - startMillis < timeoutMillis || count(nowMillis) > 0;
  }
}
