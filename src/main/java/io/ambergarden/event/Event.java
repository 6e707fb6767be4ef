package io.ambergarden.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One validated device event.
 *
 * <p>Identity is {@code (deviceId, ts, eventId)}; a missing eventId is the empty string.
 *
 * @param deviceId the device id, never null
 * @param ts event time, epoch milliseconds
 * @param eventId the client's idempotency key, {@code ""} when absent (never null)
 * @param deviceType optional device type, nullable
 * @param status optional short status text, nullable
 * @param code optional integer status code, nullable
 * @param metrics metric name to finite value; never null, unmodifiable, insertion order
 * @param tags tag name to text; never null, unmodifiable, insertion order
 * @param payload optional payload as compact JSON text (any JSON value), nullable
 */
public record Event(
    String deviceId,
    long ts,
    String eventId,
    String deviceType,
    String status,
    Integer code,
    Map<String, Double> metrics,
    Map<String, String> tags,
    String payload) {

  public Event {
    Objects.requireNonNull(deviceId, "deviceId");
    eventId = eventId == null ? "" : eventId;
    metrics = freeze(metrics);
    tags = freeze(tags);
  }

  /** Convenience constructor for an event with only the identity fields. */
  public Event(String deviceId, long ts, String eventId) {
    this(deviceId, ts, eventId, null, null, null, Map.of(), Map.of(), null);
  }

  private static <V> Map<String, V> freeze(Map<String, V> m) {
    if (m == null || m.isEmpty()) {
      return Map.of();
    }
    return Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
