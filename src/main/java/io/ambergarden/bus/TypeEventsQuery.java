package io.ambergarden.bus;

/** Recent events of one device type, newest first, merged across its salt partitions. */
public final class TypeEventsQuery {
  public static final Endpoint<Request, EventPage> ENDPOINT =
      new Endpoint<>("amber.query.type-events", Request.class, EventPage.class);

  /**
   * Replied to with an {@link EventPage}. Events older than {@code from} are left out (the
   * retention bounds it anyway: {@link Long#MIN_VALUE} means the whole retention). {@code position}
   * is null for the first page.
   */
  public record Request(String deviceType, long from, int limit, PagePosition position) {}

  private TypeEventsQuery() {}
}
