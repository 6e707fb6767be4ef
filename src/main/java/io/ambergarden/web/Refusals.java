package io.ambergarden.web;

import io.ambergarden.config.AmberConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers a request before its body is read. Closing while the client still sends would make the
 * kernel reset the connection and the client would lose the answer, so the rest of the body is read
 * and dropped first.
 */
public final class Refusals {
  private final Vertx vertx;
  private final AmberConfig.Http http;

  public Refusals(Vertx vertx, AmberConfig.Http http) {
    this.vertx = vertx;
    this.http = http;
  }

  /**
   * Answers now. On HTTP/1.x a body still on its way is read and dropped, at most
   * http.max-body-bytes within http.body-timeout, then the connection is closed; on HTTP/2 only the
   * stream ends (closing would take the connection's other streams down).
   */
  public void refuse(RoutingContext ctx, ApiException answer) {
    HttpServerRequest req = ctx.request();
    if (!req.isEnded()) {
      if (req.version() == HttpVersion.HTTP_2) {
        req.handler(buf -> {});
        req.resume();
      } else {
        drainThenClose(ctx);
      }
    }
    ctx.fail(answer);
  }

  private void drainThenClose(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    HttpConnection conn = req.connection();
    ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
    long max = http.maxBodyBytes();
    long[] dropped = {0};
    long timer = vertx.setTimer(http.bodyTimeout().toMillis(), id -> conn.close());
    req.handler(
        buf -> {
          dropped[0] += buf.length();
          if (dropped[0] > max) {
            conn.close();
          }
        });
    req.endHandler(
        v -> {
          vertx.cancelTimer(timer);
          conn.close();
        });
    req.exceptionHandler(err -> vertx.cancelTimer(timer));
    req.resume();
  }
}
