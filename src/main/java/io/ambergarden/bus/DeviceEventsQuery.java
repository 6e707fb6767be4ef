package io.ambergarden.bus;

/** One device's events in [from, to), newest first, by keyset paging over its non-empty buckets. */
public final class DeviceEventsQuery {
  public static final Endpoint<Request, EventPage> ENDPOINT =
      new Endpoint<>("amber.query.device-events", Request.class, EventPage.class);

  /** Replied to with an {@link EventPage}. {@code position} is null for the first page. */
  public record Request(String deviceId, long from, long to, int limit, PagePosition position) {}

  private DeviceEventsQuery() {}
}
