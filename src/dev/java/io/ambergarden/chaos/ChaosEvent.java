package io.ambergarden.chaos;

import io.vertx.core.json.JsonObject;

/** One event of the workload, with the identity and values the checker compares against. */
public record ChaosEvent(
    String deviceId, long ts, String eventId, String status, int code, double temperature) {

  public JsonObject json() {
    return new JsonObject()
        .put("deviceId", deviceId)
        .put("ts", ts)
        .put("eventId", eventId)
        .put("deviceType", "meter")
        .put("status", status)
        .put("code", code)
        .put("metrics", new JsonObject().put("temperature", temperature));
  }
}
