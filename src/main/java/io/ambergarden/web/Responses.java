package io.ambergarden.web;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Successful JSON answers; failures go through {@link Problems}. */
public final class Responses {
  private Responses() {}

  public static void json(RoutingContext ctx, int status, JsonObject body) {
    json(ctx, status, body.toBuffer());
  }

  public static void json(RoutingContext ctx, int status, Buffer body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }
}
