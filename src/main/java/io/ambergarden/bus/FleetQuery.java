package io.ambergarden.bus;

import java.util.List;
import java.util.Map;

/** Every device's current state, optionally by type, status and abnormal, in device-id order. */
public final class FleetQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.fleet", Request.class, Reply.class);

  /**
   * Null filters match all. {@code after} is the last device id of the previous page (from the
   * cursor), null for the first page.
   */
  public record Request(String type, String status, Boolean abnormal, int limit, String after) {}

  /** A device's state, from its newest event. */
  public record Device(
      String deviceId,
      String deviceType,
      long lastSeen,
      String status,
      Integer code,
      Map<String, Double> metrics,
      boolean abnormal) {
    public Device {
      metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
    }
  }

  /** {@code next} resumes after this device id; null on the last page. */
  public record Reply(List<Device> items, String next) {
    public Reply {
      items = List.copyOf(items);
    }
  }

  private FleetQuery() {}
}
