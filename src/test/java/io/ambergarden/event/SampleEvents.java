package io.ambergarden.event;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Events the tests of several packages share. */
public final class SampleEvents {
  private SampleEvents() {}

  /**
   * Every field set: eventId e-1, type charger, status normal, code 200, metrics temperature 36.5
   * and count 3.0 (in that order), tag site=plant-3, payload {"a":[1,2,{"b":null}]}.
   */
  /**
   * One device's page of {@code n} events, newest first, a second apart, shaped like the
   * benchmark's (three metrics, 5% faults), the same for the same {@code n}; {@code payload} may be
   * null.
   */
  public static List<Event> page(String deviceId, int n, String payload) {
    SplittableRandom rnd = new SplittableRandom(42);
    List<Event> page = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Map<String, Double> metrics = new LinkedHashMap<>();
      metrics.put("temperature", Math.round((20 + rnd.nextDouble() * 60) * 100) / 100.0);
      metrics.put("vibration", Math.round(rnd.nextDouble() * 1000) / 1000.0);
      metrics.put("current", Math.round(rnd.nextDouble() * 3200) / 100.0);
      boolean fault = rnd.nextInt(20) == 0;
      page.add(
          new Event(
              deviceId,
              1_780_000_000_000L - i * 1000L,
              "e-" + Long.toHexString(rnd.nextLong()),
              "charger",
              fault ? "fault" : "normal",
              fault ? 503 : 200,
              metrics,
              Map.of(),
              payload));
    }
    return page;
  }

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
