package io.ambergarden.bus;

/** Every event-bus address, in one place. */
public final class Addresses {
  /** {@link PersistRequest} → {@link PersistResult}: write events durably. */
  public static final String WRITER_PERSIST = "amber.writer.persist";
  /** Published after a durable write: one {@link DurableEvents} per write request (live feed, counters). */
  public static final String EVENTS_DURABLE = "amber.events.durable";
  /** Published for WebSocket clients: {@link DurableEvents} of every instance, read from the live topic. */
  public static final String LIVE_EVENTS = "amber.live.events";
  /** {@link CountRequest} → event count: apply counter increments; replies when they are written. */
  public static final String COUNTERS_INCREMENT = "amber.counters.increment";
  /** JSON query request → JSON page. */
  public static final String QUERY_DEVICE_EVENTS = "amber.query.device-events";
  public static final String QUERY_DEVICE_LATEST = "amber.query.device-latest";
  public static final String QUERY_TYPE_EVENTS = "amber.query.type-events";
  public static final String QUERY_STATUS_STATS = "amber.query.status-stats";
  public static final String QUERY_DEVICE_COUNTERS = "amber.query.device-counters";
  public static final String QUERY_ABNORMAL = "amber.query.abnormal";
  public static final String QUERY_ROLLUPS = "amber.query.rollups";

  private Addresses() {
  }
}
