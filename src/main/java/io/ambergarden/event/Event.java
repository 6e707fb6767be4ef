package io.ambergarden.event;

import java.util.Map;

/**
 * A validated device event. Identity is (deviceId, ts, eventId); an absent eventId is "".
 *
 * @param ts      event time, epoch millis
 * @param payload compact JSON text of the payload value, or null
 */
public record Event(String deviceId, long ts, String eventId, String deviceType, String status, Integer code,
                    Map<String, Double> metrics, Map<String, String> tags, String payload) {
  public Event {
    metrics = metrics == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metrics));
    tags = tags == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tags));
    eventId = eventId == null ? "" : eventId;
  }
}
