package io.ambergarden.bus;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/** A device's counters: its event total and the events per status. */
public final class DeviceCountersQuery {
  public static final String ADDRESS = "amber.query.device-counters";

  public record Request(String deviceId) {}

  public record Reply(String deviceId, long total, Map<String, Long> byStatus) {
    public Reply {
      byStatus = Map.copyOf(byStatus);
    }

    public JsonObject toJson() {
      return new JsonObject()
          .put("deviceId", deviceId)
          .put("total", total)
          .put("byStatus", new JsonObject(new TreeMap<String, Object>(byStatus)));
    }
  }

  private DeviceCountersQuery() {}
}
