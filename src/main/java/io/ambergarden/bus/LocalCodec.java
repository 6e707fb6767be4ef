package io.ambergarden.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/** Passes immutable records by reference on the local event bus; they never cross a process. */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  private LocalCodec(Class<T> type) {
    this.name = "local-" + type.getName();
  }

  /** Registers the codecs of every message record; once per Vertx instance. */
  public static void registerAll(Vertx vertx) {
    register(vertx, PersistRequest.class);
    register(vertx, PersistResult.class);
    register(vertx, DurableEvents.class);
    register(vertx, CountRequest.class);
    register(vertx, io.ambergarden.event.Event.class);
    register(vertx, EventPage.class);
    register(vertx, DeviceEventsQuery.Request.class);
    register(vertx, TypeEventsQuery.Request.class);
    register(vertx, DeviceLatestQuery.Request.class);
    register(vertx, DeviceCountersQuery.Request.class);
    register(vertx, DeviceCountersQuery.Reply.class);
    register(vertx, StatusStatsQuery.Request.class);
    register(vertx, StatusStatsQuery.Reply.class);
    register(vertx, AbnormalQuery.Request.class);
    register(vertx, AbnormalQuery.Reply.class);
    register(vertx, RollupsQuery.Request.class);
    register(vertx, RollupsQuery.Reply.class);
    register(vertx, FleetQuery.Request.class);
    register(vertx, FleetQuery.Reply.class);
    register(vertx, ActivityQuery.Request.class);
    register(vertx, ActivityQuery.Reply.class);
    register(vertx, ImageMeta.class);
    register(vertx, ImageSave.Request.class);
    register(vertx, ImageGet.Request.class);
    register(vertx, ImageDelete.Request.class);
    register(vertx, ImageDelete.Reply.class);
    register(vertx, ShareCreate.Request.class);
    register(vertx, ShareCreate.Reply.class);
    register(vertx, ShareGet.Request.class);
    register(vertx, ImageListQuery.Request.class);
    register(vertx, ImageListQuery.Page.class);
  }

  private static <T> void register(Vertx vertx, Class<T> type) {
    vertx.eventBus().registerDefaultCodec(type, new LocalCodec<>(type));
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(name + " is local only");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(name + " is local only");
  }

  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
