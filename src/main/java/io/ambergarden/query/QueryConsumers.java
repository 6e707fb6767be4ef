package io.ambergarden.query;

import io.ambergarden.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.util.function.Function;

/** The query verticles' consumers: a typed request in, its reply out, a failed read as 503. */
final class QueryConsumers {
  private QueryConsumers() {}

  static <Q, R> Future<Void> serve(Vertx vertx, String address, Function<Q, Future<R>> query) {
    return vertx
        .eventBus()
        .<Q>consumer(
            address,
            (Message<Q> msg) ->
                query
                    .apply(msg.body())
                    .onSuccess(msg::reply)
                    .onFailure(
                        err ->
                            FailureCode.UNAVAILABLE.fail(msg, "read failed: " + err.getMessage())))
        .completion();
  }
}
