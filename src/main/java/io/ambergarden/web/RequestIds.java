package io.ambergarden.web;

import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Request and correlation ids: taken from X-Request-Id when the client sends a sane one, else generated;
 * echoed on the response and carried as a header on every event-bus hop the request causes.
 */
public final class RequestIds {
  public static final String HEADER = "X-Request-Id";
  public static final String BUS_HEADER = "x-request-id";
  private static final String KEY = "requestId";
  private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  private RequestIds() {
  }

  /** The router's first handler. */
  public static void assign(RoutingContext ctx) {
    String given = ctx.request().getHeader(HEADER);
    String id = given != null && SANE.matcher(given).matches() ? given : UUID.randomUUID().toString();
    ctx.put(KEY, id);
    ctx.response().putHeader(HEADER, id);
    ctx.next();
  }

  public static String of(RoutingContext ctx) {
    String id = ctx.get(KEY);
    return id == null ? "-" : id;
  }

  public static DeliveryOptions options(RoutingContext ctx, long timeoutMillis) {
    return new DeliveryOptions().setSendTimeout(timeoutMillis).addHeader(BUS_HEADER, of(ctx));
  }

  /** The id a message carries, or "-" for work that no request caused (e.g. Kafka records). */
  public static String of(Message<?> msg) {
    String id = msg.headers().get(BUS_HEADER);
    return id == null ? "-" : id;
  }
}
