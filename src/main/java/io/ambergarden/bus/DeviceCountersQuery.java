package io.ambergarden.bus;

import java.util.Map;

/**
 * A device's counters: its event total and the events per status, "ever", with how far they are
 * exact and how far the counted backlog reaches.
 */
public final class DeviceCountersQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.device-counters", Request.class, Reply.class);

  public record Request(String deviceId) {}

  /**
   * {@code exactThrough}: the counts of the hours before it (epoch millis) are exact; null when
   * none is known to be. {@code countedThrough}: the acknowledgement time (epoch millis) up to
   * which every event is counted; null when a shard has not counted yet.
   */
  public record Reply(
      String deviceId,
      long total,
      Map<String, Long> byStatus,
      Long exactThrough,
      Long countedThrough) {
    public Reply {
      byStatus = Map.copyOf(byStatus);
    }
  }

  private DeviceCountersQuery() {}
}
