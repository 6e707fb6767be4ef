package io.ambergarden.web;

import io.ambergarden.bus.RequestId;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Request ids: taken from X-Request-Id when the client sends a sane one, else generated; echoed on
 * the response and carried on every event-bus hop the request causes ({@link RequestId}).
 */
public final class RequestIds {
  public static final String HEADER = "X-Request-Id";
  private static final String KEY = "requestId";
  private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  private RequestIds() {}

  /** The router's first handler. */
  public static void assign(RoutingContext ctx) {
    String given = ctx.request().getHeader(HEADER);
    String id =
        given != null && SANE.matcher(given).matches() ? given : UUID.randomUUID().toString();
    ctx.put(KEY, id);
    ctx.response().putHeader(HEADER, id);
    ctx.next();
  }

  public static String of(RoutingContext ctx) {
    String id = ctx.get(KEY);
    return id == null ? RequestId.NONE : id;
  }

  public static DeliveryOptions options(RoutingContext ctx, long timeoutMillis) {
    return RequestId.options(of(ctx), timeoutMillis);
  }
}
