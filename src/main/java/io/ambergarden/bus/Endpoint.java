package io.ambergarden.bus;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;

/**
 * An event-bus address tied to what travels there: the request type {@code Q} and the reply type
 * {@code R}. Every request goes through {@link #request}, so it always carries the request id and a
 * timeout; the codecs are registered from the endpoints ({@link Endpoints#registerCodecs}).
 */
public record Endpoint<Q, R>(String address, Class<Q> requestType, Class<R> replyType) {

  /** Sends {@code request} with the request id as a header; fails after {@code timeoutMillis}. */
  public Future<R> request(Vertx vertx, Q request, String requestId, long timeoutMillis) {
    return vertx
        .eventBus()
        .<R>request(address, request, RequestId.options(requestId, timeoutMillis))
        .map(Message::body);
  }

  /** The consumer of this endpoint (one per verticle instance; the bus round-robins). */
  public MessageConsumer<Q> consumer(Vertx vertx, Handler<Message<Q>> handler) {
    return vertx.eventBus().consumer(address, handler);
  }
}
