package io.ambergarden.web;

import io.ambergarden.bus.FailureCode;
import io.ambergarden.metrics.LogThrottle;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Renders every failure as application/problem+json (RFC 9457). */
public final class Problems {
  public static final String CONTENT_TYPE = "application/problem+json";
  private static final Logger LOG = LoggerFactory.getLogger(Problems.class);

  /** Process-wide: a few shed-answer lines per second at most, whatever the instance count. */
  private static final LogThrottle SHED_LOGS = new LogThrottle(5, Duration.ofSeconds(1));

  /** Route prefixes whose next segment is a secret (a share token). */
  private static final List<String> CAPABILITY_PATHS = List.of("/api/v1/shares/");

  private final int retryAfterSeconds;

  public Problems(int retryAfterSeconds) {
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The router's failure handler. */
  public void handle(RoutingContext ctx) {
    ApiException e = toApi(ctx.failure(), ctx.statusCode());
    // shed answers come in floods during an outage or overload: rate-limited; bugs (500) never
    long skipped = e.status() == 503 ? SHED_LOGS.tryAcquire() : 0;
    if (e.status() >= 500 && skipped != LogThrottle.SUPPRESS) {
      LOG.warn(
          "{} {} (request {}) -> {}: {}{}",
          ctx.request().method(),
          loggedPath(ctx.normalizedPath()),
          RequestIds.of(ctx),
          e.status(),
          e.getMessage(),
          skipped > 0 ? " (" + skipped + " more 503 answers not logged)" : "",
          ctx.failure() instanceof ApiException ? null : ctx.failure());
    }
    send(ctx, e);
  }

  /**
   * The path as it may be logged: a share link's path is its own capability, so its token is
   * replaced. Matched on the normalized path, the one the router routed on.
   */
  static String loggedPath(String normalizedPath) {
    if (normalizedPath == null) {
      return "";
    }
    for (String prefix : CAPABILITY_PATHS) {
      if (normalizedPath.regionMatches(true, 0, prefix, 0, prefix.length())
          && normalizedPath.length() > prefix.length()) {
        return prefix + "{redacted}";
      }
    }
    return normalizedPath;
  }

  public static void send(RoutingContext ctx, ApiException e) {
    if (ctx.response().headWritten()) {
      ctx.response().reset();
      return;
    }
    JsonObject body =
        new JsonObject()
            .put("type", "about:blank")
            .put("title", e.title())
            .put("status", e.status())
            .put("detail", e.getMessage())
            .put("instance", ctx.request().path())
            .put("requestId", RequestIds.of(ctx));
    if (e.errors() != null) {
      body.put("errors", e.errors());
    }
    if (e.status() == 401 && ctx.response().headers().get("WWW-Authenticate") == null) {
      ctx.response().putHeader("WWW-Authenticate", AccessHandler.REALM);
    }
    if (e.retryAfterSeconds() != null) {
      ctx.response().putHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
    }
    ctx.response()
        .setStatusCode(e.status())
        .putHeader("Content-Type", CONTENT_TYPE)
        .end(body.encode());
  }

  /** The one place where a bus failure becomes an HTTP answer. */
  ApiException toApi(FailureCode code, String detail) {
    return switch (code) {
      case BAD_REQUEST -> ApiException.badRequest(detail);
      case NOT_FOUND -> ApiException.notFound(detail);
      case OVERLOADED -> ApiException.tooManyRequests("overloaded: " + detail, retryAfterSeconds);
      case UNAVAILABLE -> ApiException.unavailable(detail, retryAfterSeconds);
      case INTERNAL -> ApiException.internal();
    };
  }

  public ApiException toApi(Throwable failure, int statusCode) {
    if (failure instanceof ApiException api) {
      return api;
    }
    if (failure instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        return ApiException.unavailable(
            "the request timed out inside the service; its outcome is unknown", retryAfterSeconds);
      }
      if (re.failureType() == ReplyFailure.NO_HANDLERS) {
        return ApiException.unavailable("the service is starting or stopping", retryAfterSeconds);
      }
      return FailureCode.of(re)
          .map(code -> toApi(code, re.getMessage()))
          .orElseGet(() -> ApiException.internal());
    }
    int status = statusCode > 0 ? statusCode : 500;
    return switch (status) {
      case 400 -> ApiException.badRequest("malformed request");
      case 404 -> ApiException.notFound("no such resource");
      case 405 ->
          new ApiException(405, "Method Not Allowed", "method not allowed here", null, null);
      case 413 ->
          new ApiException(
              413, "Payload Too Large", "the request body exceeds the limit", null, null);
      case 415 ->
          new ApiException(415, "Unsupported Media Type", "unsupported content type", null, null);
      default ->
          status < 500
              ? new ApiException(status, "Client Error", "request rejected", null, null)
              : ApiException.internal();
    };
  }
}
