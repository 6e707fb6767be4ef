package io.ambergarden.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;
import java.util.LinkedHashSet;
import java.util.Set;

/** Passes immutable records by reference on the local event bus; they never cross a process. */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  private LocalCodec(Class<T> type) {
    this.name = "local-" + type.getName();
  }

  /**
   * Registers a codec for every type an endpoint or a published address carries (the JDK's own
   * types have the bus's codecs); once per Vertx instance.
   */
  public static void registerAll(Vertx vertx) {
    Set<Class<?>> types = new LinkedHashSet<>(Addresses.PUBLISHED);
    for (Endpoint<?, ?> e : Addresses.ENDPOINTS) {
      types.add(e.requestType());
      types.add(e.replyType());
    }
    types.stream().filter(t -> !t.getName().startsWith("java.")).forEach(t -> register(vertx, t));
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
