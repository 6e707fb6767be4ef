package io.ambergarden.cassandra;

import java.time.Duration;

/**
 * Derived key parts and write options; deterministic, so a redelivered event produces identical
 * cells.
 */
public final class RowKeys {
  private RowKeys() {}

  /** Salt partition of a device; String.hashCode is specified, so every instance agrees. */
  public static int salt(String deviceId, int salts) {
    return Math.floorMod(deviceId.hashCode(), salts);
  }

  /**
   * Write timestamp (micros) for event-time-ordered upserts: the event time, with a stable
   * sub-millisecond tie-break from the event id, so the newest event wins whatever the arrival
   * order.
   */
  public static long eventTimeWriteTimestamp(long tsMillis, String eventId) {
    return tsMillis * 1000L + Math.floorMod(eventId.hashCode(), 1000);
  }

  /**
   * TTL that ends the row at ts + retention (a backfilled event expires with its contemporaries);
   * at least 1 s.
   */
  public static int ttlSeconds(long tsMillis, long nowMillis, Duration retention) {
    long remaining = (tsMillis + retention.toMillis() - nowMillis) / 1000L;
    return (int) Math.max(1L, Math.min(remaining, Integer.MAX_VALUE));
  }
}
