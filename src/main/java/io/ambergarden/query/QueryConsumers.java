package io.ambergarden.query;

import io.ambergarden.bus.FailureCode;
import io.ambergarden.metrics.ReadMeters;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.util.function.Function;

/**
 * The query verticles' consumers: a typed request in, its reply out, a failed read as 503, and the
 * time in between as the read's query stage.
 */
final class QueryConsumers {
  private QueryConsumers() {}

  static <Q, R> Future<Void> serve(
      Vertx vertx, ReadMeters meters, String address, Function<Q, Future<R>> query) {
    return vertx
        .eventBus()
        .<Q>consumer(
            address,
            (Message<Q> msg) -> {
              long start = System.nanoTime();
              query
                  .apply(msg.body())
                  .onSuccess(msg::reply)
                  .onFailure(
                      err -> FailureCode.UNAVAILABLE.fail(msg, "read failed: " + err.getMessage()))
                  .onComplete(r -> meters.queried(address, System.nanoTime() - start));
            })
        .completion();
  }
}
