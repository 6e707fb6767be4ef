package io.ambergarden.bus;

/**
 * Every event-bus address, in one place. The request and reply types of each query address live
 * next to it, in its {@code *Query} class; all of them travel by reference ({@link LocalCodec}).
 */
public final class Addresses {
  /** {@link PersistRequest} → {@link PersistResult}: write events durably. */
  public static final String WRITER_PERSIST = "amber.writer.persist";

  /**
   * Published after a durable write: one {@link DurableEvents} per write request (live feed,
   * counters).
   */
  public static final String EVENTS_DURABLE = "amber.events.durable";

  /**
   * Published for WebSocket clients: {@link DurableEvents} of every instance, read from the live
   * topic.
   */
  public static final String LIVE_EVENTS = "amber.live.events";

  /**
   * {@link CountRequest} → event count: apply counter increments; replies when they are written.
   */
  public static final String COUNTERS_APPLY = "amber.counters.apply";

  public static final String QUERY_DEVICE_EVENTS = DeviceEventsQuery.ADDRESS;
  public static final String QUERY_DEVICE_LATEST = DeviceLatestQuery.ADDRESS;
  public static final String QUERY_TYPE_EVENTS = TypeEventsQuery.ADDRESS;
  public static final String QUERY_STATUS_STATS = StatusStatsQuery.ADDRESS;
  public static final String QUERY_DEVICE_COUNTERS = DeviceCountersQuery.ADDRESS;
  public static final String QUERY_ABNORMAL = AbnormalQuery.ADDRESS;
  public static final String QUERY_ROLLUPS = RollupsQuery.ADDRESS;
  public static final String QUERY_FLEET = FleetQuery.ADDRESS;
  public static final String QUERY_ACTIVITY = ActivityQuery.ADDRESS;
  public static final String MEDIA_SAVE = ImageSave.ADDRESS;
  public static final String MEDIA_GET = ImageGet.ADDRESS;
  public static final String MEDIA_DELETE = ImageDelete.ADDRESS;
  public static final String MEDIA_SHARE_CREATE = ShareCreate.ADDRESS;
  public static final String MEDIA_SHARE_GET = ShareGet.ADDRESS;
  public static final String MEDIA_LIST = ImageListQuery.ADDRESS;

  private Addresses() {}
}
