package io.ambergarden.bus;

/**
 * One page of a device's events in [from, to), oldest first, for an export: the same keyset paging
 * over the device's non-empty buckets and hot slices as {@link DeviceEventsQuery}, walked the other
 * way (ts ascending, then event id descending: the exact reverse of the table's clustering order,
 * so every stored event is served once). Replied to with an {@link EventPage} in that order.
 */
public final class ExportPageQuery {
  public static final Endpoint<Request, EventPage> ENDPOINT =
      new Endpoint<>("amber.query.export-page", Request.class, EventPage.class);

  /** {@code position} is null for the first page, else the previous page's {@code next}. */
  public record Request(String deviceId, long from, long to, int limit, PagePosition position) {}

  private ExportPageQuery() {}
}
