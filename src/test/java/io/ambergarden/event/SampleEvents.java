package io.ambergarden.event;

import java.util.LinkedHashMap;
import java.util.Map;

/** Events the tests of several packages share. */
public final class SampleEvents {
  private SampleEvents() {}

  /**
   * Every field set: eventId e-1, type charger, status normal, code 200, metrics temperature 36.5
   * and count 3.0 (in that order), tag site=plant-3, payload {"a":[1,2,{"b":null}]}.
   */
  public static Event full(String deviceId, long ts) {
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("temperature", 36.5);
    metrics.put("count", 3.0);
    return new Event(
        deviceId,
        ts,
        "e-1",
        "charger",
        "normal",
        200,
        metrics,
        Map.of("site", "plant-3"),
        "{\"a\":[1,2,{\"b\":null}]}");
  }
}
