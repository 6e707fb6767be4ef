package io.ambergarden.event;

import java.time.Duration;

/** Size and range limits applied while parsing. */
public record EventLimits(int maxBatch, int maxIdLength, int maxDeviceTypeLength, int maxStatusLength, int maxMetrics,
                          int maxTags, int maxTagKeyLength, int maxTagValueLength, int maxMetricNameLength,
                          int maxPayloadBytes, int maxDepth, long retentionMillis, long futureSkewMillis) {
  public EventLimits {
    if (maxBatch < 1 || maxIdLength < 1 || maxDeviceTypeLength < 1 || maxStatusLength < 1 || maxMetrics < 0
        || maxTags < 0 || maxTagKeyLength < 1 || maxTagValueLength < 1 || maxMetricNameLength < 1
        || maxPayloadBytes < 0 || maxDepth < 2 || retentionMillis < 1 || futureSkewMillis < 0) {
      throw new IllegalArgumentException("event limits must be positive");
    }
  }

  public static EventLimits defaults() {
    return new EventLimits(1000, 128, 64, 32, 64, 32, 64, 256, 64, 16384, 16, Duration.ofDays(180).toMillis(),
        Duration.ofMinutes(5).toMillis());
  }

  public EventLimits withBatchAndTime(int maxBatch, int maxPayloadBytes, Duration retention, Duration futureSkew) {
    return new EventLimits(maxBatch, maxIdLength, maxDeviceTypeLength, maxStatusLength, maxMetrics, maxTags,
        maxTagKeyLength, maxTagValueLength, maxMetricNameLength, maxPayloadBytes, maxDepth, retention.toMillis(),
        futureSkew.toMillis());
  }
}
