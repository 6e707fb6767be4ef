package io.ambergarden.event;

import java.time.Duration;

/**
 * Size and range limits applied by {@link EventParser}. Every value must be positive, except {@code
 * maxPayloadBytes} and {@code futureSkewMillis}, which may be 0 (no payload / no future timestamps
 * at all); the constructor throws {@link IllegalArgumentException} otherwise.
 *
 * @param maxBatch most events in one body
 * @param maxIdLength longest deviceId / eventId
 * @param maxDeviceTypeLength longest deviceType
 * @param maxStatusLength longest status
 * @param maxMetrics most metrics per event (metrics object plus flat top-level numbers)
 * @param maxTags most tags per event
 * @param maxTagKeyLength longest tag name
 * @param maxTagValueLength longest tag value
 * @param maxMetricNameLength longest metric name
 * @param maxPayloadBytes largest payload, measured on its compact UTF-8 JSON form
 * @param maxDepth deepest JSON nesting anywhere in one event, the event object being level 1 (a
 *     wrapping batch array is not counted)
 * @param retentionMillis oldest accepted ts is {@code now - retentionMillis}
 * @param futureSkewMillis newest accepted ts is {@code now + futureSkewMillis}
 */
public record EventLimits(
    int maxBatch,
    int maxIdLength,
    int maxDeviceTypeLength,
    int maxStatusLength,
    int maxMetrics,
    int maxTags,
    int maxTagKeyLength,
    int maxTagValueLength,
    int maxMetricNameLength,
    int maxPayloadBytes,
    int maxDepth,
    long retentionMillis,
    long futureSkewMillis) {

  public static final long DEFAULT_RETENTION_MILLIS = Duration.ofDays(180).toMillis();
  public static final long DEFAULT_FUTURE_SKEW_MILLIS = Duration.ofMinutes(5).toMillis();

  private static final EventLimits DEFAULTS =
      new EventLimits(
          1000,
          128,
          64,
          32,
          64,
          32,
          64,
          256,
          64,
          16384,
          16,
          DEFAULT_RETENTION_MILLIS,
          DEFAULT_FUTURE_SKEW_MILLIS);

  public EventLimits {
    positive("maxBatch", maxBatch);
    positive("maxIdLength", maxIdLength);
    positive("maxDeviceTypeLength", maxDeviceTypeLength);
    positive("maxStatusLength", maxStatusLength);
    positive("maxMetrics", maxMetrics);
    positive("maxTags", maxTags);
    positive("maxTagKeyLength", maxTagKeyLength);
    positive("maxTagValueLength", maxTagValueLength);
    positive("maxMetricNameLength", maxMetricNameLength);
    nonNegative("maxPayloadBytes", maxPayloadBytes);
    positive("maxDepth", maxDepth);
    positive("retentionMillis", retentionMillis);
    nonNegative("futureSkewMillis", futureSkewMillis);
    if (maxDepth > 1000) {
      throw new IllegalArgumentException("maxDepth must be at most 1000, was " + maxDepth);
    }
  }

  /** The product defaults: batch 1000, ids 128, 180 days retention, 5 minutes skew, etc. */
  public static EventLimits defaults() {
    return DEFAULTS;
  }

  /** A copy with another maxBatch. */
  public EventLimits withMaxBatch(int value) {
    return new EventLimits(
        value,
        maxIdLength,
        maxDeviceTypeLength,
        maxStatusLength,
        maxMetrics,
        maxTags,
        maxTagKeyLength,
        maxTagValueLength,
        maxMetricNameLength,
        maxPayloadBytes,
        maxDepth,
        retentionMillis,
        futureSkewMillis);
  }

  /** A copy with another retention. */
  public EventLimits withRetentionMillis(long value) {
    return new EventLimits(
        maxBatch,
        maxIdLength,
        maxDeviceTypeLength,
        maxStatusLength,
        maxMetrics,
        maxTags,
        maxTagKeyLength,
        maxTagValueLength,
        maxMetricNameLength,
        maxPayloadBytes,
        maxDepth,
        value,
        futureSkewMillis);
  }

  /**
   * A copy with the limits the service configures: batch size, payload size, retention and future
   * skew.
   */
  public EventLimits withBatchAndTime(
      int maxBatch, int maxPayloadBytes, Duration retention, Duration futureSkew) {
    return new EventLimits(
        maxBatch,
        maxIdLength,
        maxDeviceTypeLength,
        maxStatusLength,
        maxMetrics,
        maxTags,
        maxTagKeyLength,
        maxTagValueLength,
        maxMetricNameLength,
        maxPayloadBytes,
        maxDepth,
        retention.toMillis(),
        futureSkew.toMillis());
  }

  private static void nonNegative(String name, long v) {
    if (v < 0) {
      throw new IllegalArgumentException(name + " must not be negative, was " + v);
    }
  }

  private static void positive(String name, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + v);
    }
  }
}
