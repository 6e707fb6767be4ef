package io.ambergarden.bus;

import io.ambergarden.event.Event;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A stored event as the read API shows it: {@code deviceId}, {@code ts}, {@code eventId} (always,
 * "" when the event had none), then the optional fields that are set; the payload as JSON, not as
 * text.
 */
public final class EventApiJson {
  private EventApiJson() {}

  public static JsonObject of(Event e) {
    JsonObject o =
        new JsonObject()
            .put("deviceId", e.deviceId())
            .put("ts", e.ts())
            .put("eventId", e.eventId());
    if (e.deviceType() != null) {
      o.put("deviceType", e.deviceType());
    }
    if (e.status() != null) {
      o.put("status", e.status());
    }
    if (e.code() != null) {
      o.put("code", e.code());
    }
    if (!e.metrics().isEmpty()) {
      o.put("metrics", new JsonObject(new LinkedHashMap<String, Object>(e.metrics())));
    }
    if (!e.tags().isEmpty()) {
      o.put("tags", new JsonObject(new LinkedHashMap<String, Object>(e.tags())));
    }
    if (e.payload() != null) {
      o.put("payload", Json.decodeValue(e.payload()));
    }
    return o;
  }

  public static JsonArray of(List<Event> events) {
    JsonArray items = new JsonArray();
    events.forEach(e -> items.add(of(e)));
    return items;
  }
}
