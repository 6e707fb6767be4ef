package io.ambergarden.bus;

import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;

/**
 * The request id carried as a header on every event-bus hop a request causes, for log correlation.
 */
public final class RequestId {
  public static final String HEADER = "x-request-id";

  /** What work that no request caused (e.g. Kafka records) is logged with. */
  public static final String NONE = "-";

  private RequestId() {}

  public static DeliveryOptions options(String requestId, long timeoutMillis) {
    return new DeliveryOptions().setSendTimeout(timeoutMillis).addHeader(HEADER, requestId);
  }

  /** The id a message carries, or {@link #NONE}. */
  public static String of(Message<?> msg) {
    String id = msg.headers().get(HEADER);
    return id == null ? NONE : id;
  }
}
