package io.ambergarden.query;

import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.metrics.ReadMeters;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import java.util.function.Function;

/**
 * The query verticles' consumers: a typed request in, its reply out, a failure with its own {@link
 * FailureCode} as that code and any other as 503, and the time in between as the read's query
 * stage.
 */
final class QueryConsumers {
  private QueryConsumers() {}

  static <Q, R> Future<Void> serve(
      Vertx vertx, ReadMeters meters, Endpoint<Q, R> endpoint, Function<Q, Future<R>> query) {
    String address = endpoint.address();
    return endpoint
        .consumer(
            vertx,
            (Message<Q> msg) -> {
              long start = System.nanoTime();
              query
                  .apply(msg.body())
                  .onSuccess(msg::reply)
                  .onFailure(err -> fail(msg, err))
                  .onComplete(r -> meters.queried(address, System.nanoTime() - start));
            })
        .completion();
  }

  private static void fail(Message<?> msg, Throwable err) {
    if (err instanceof ReplyException r && FailureCode.of(r).isPresent()) {
      msg.fail(r.failureCode(), r.getMessage());
    } else {
      FailureCode.UNAVAILABLE.fail(msg, "read failed: " + err.getMessage());
    }
  }
}
