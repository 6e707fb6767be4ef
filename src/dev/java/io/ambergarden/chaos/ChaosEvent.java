package io.ambergarden.chaos;

import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * One event of the workload, with the identity and values the checker compares against. Its device
 * type, tags and payload follow from its identity, so every field of a stored row can be compared,
 * not only the ids.
 */
public record ChaosEvent(
    String deviceId, long ts, String eventId, String status, int code, double temperature) {
  static final List<String> TYPES = List.of("meter", "pump", "valve");

  /** One type per device, so a device never changes type (its fleet facets stay put). */
  public String deviceType() {
    return TYPES.get(Math.floorMod(deviceId.hashCode(), TYPES.size()));
  }

  public Map<String, Double> metrics() {
    return Map.of("temperature", temperature);
  }

  public Map<String, String> tags() {
    return Map.of("site", "s" + Math.floorMod(eventId.hashCode(), 5));
  }

  /** The payload as JSON. */
  public JsonObject payload() {
    return new JsonObject().put("seq", eventId).put("n", Math.floorMod(eventId.hashCode(), 1000));
  }

  public JsonObject json() {
    return new JsonObject()
        .put("deviceId", deviceId)
        .put("ts", ts)
        .put("eventId", eventId)
        .put("deviceType", deviceType())
        .put("status", status)
        .put("code", code)
        .put("metrics", new JsonObject().put("temperature", temperature))
        .put("tags", new JsonObject().put("site", tags().get("site")))
        .put("payload", payload());
  }
}
