package io.ambergarden.bus;

import java.util.List;

/**
 * Every event-bus address, in one place: the request endpoints with their request and reply types,
 * and the published addresses with what they carry. All messages travel by reference ({@link
 * LocalCodec}), registered from this list.
 */
public final class Addresses {
  /** Write events durably. */
  public static final Endpoint<PersistRequest, PersistResult> WRITER_PERSIST =
      new Endpoint<>("amber.writer.persist", PersistRequest.class, PersistResult.class);

  /** Apply counter increments; replies with the number of facts applied once they are written. */
  public static final Endpoint<CountRequest, Integer> COUNTERS_APPLY =
      new Endpoint<>("amber.counters.apply", CountRequest.class, Integer.class);

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

  /** Every request endpoint. */
  public static final List<Endpoint<?, ?>> ENDPOINTS =
      List.of(
          WRITER_PERSIST,
          COUNTERS_APPLY,
          DeviceEventsQuery.ENDPOINT,
          ExportPageQuery.ENDPOINT,
          DeviceLatestQuery.ENDPOINT,
          TypeEventsQuery.ENDPOINT,
          StatusStatsQuery.ENDPOINT,
          DeviceCountersQuery.ENDPOINT,
          AbnormalQuery.ENDPOINT,
          RollupsQuery.ENDPOINT,
          SeriesQuery.ENDPOINT,
          FleetQuery.ENDPOINT,
          ActivityQuery.ENDPOINT,
          ImageSave.ENDPOINT,
          ImageGet.ENDPOINT,
          ImageDelete.ENDPOINT,
          ShareCreate.ENDPOINT,
          ShareGet.ENDPOINT,
          ImageListQuery.ENDPOINT);

  /** What the published addresses carry. */
  public static final List<Class<?>> PUBLISHED = List.of(DurableEvents.class);

  private Addresses() {}
}
