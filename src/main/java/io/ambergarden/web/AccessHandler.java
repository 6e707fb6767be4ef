package io.ambergarden.web;

import io.ambergarden.auth.AuthException;
import io.ambergarden.auth.Credential;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.Principal;
import io.ambergarden.auth.RouteRules;
import io.ambergarden.event.Event;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.CorsHandler;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Access to the API, in front of every route: CORS for the allowed origins, then the credential
 * (401), the caller's rate (429), the route's scope and the devices it touches (403), all as
 * problems. The rules per route are in {@link RouteRules}; the credential checks in {@link
 * Gatekeeper}. With auth.enabled=false only CORS is applied.
 */
public final class AccessHandler {
  static final String API_KEY_HEADER = "X-API-Key";
  static final String REALM = "Bearer realm=\"amber-garden\"";
  static final String FORWARDED_FOR = "X-Forwarded-For";
  static final short POLICY_VIOLATION = 1008;
  private static final String PRINCIPAL = "amber.principal";

  private final Vertx vertx;
  private final Gatekeeper gate;
  private final CorsHandler cors;
  private final Set<String> corsOrigins;

  public AccessHandler(Vertx vertx, Gatekeeper gate) {
    this.vertx = vertx;
    this.gate = gate;
    List<String> origins = gate.config().corsAllowedOrigins();
    this.corsOrigins = Set.copyOf(origins);
    this.cors =
        origins.isEmpty()
            ? null
            : CorsHandler.create()
                .addOrigins(origins)
                .allowedMethods(Set.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.DELETE))
                .allowedHeaders(
                    Set.of(
                        "Authorization",
                        API_KEY_HEADER,
                        "Content-Type",
                        RequestIds.HEADER,
                        "Last-Event-ID"))
                .exposedHeaders(Set.of(RequestIds.HEADER, "Retry-After", "WWW-Authenticate"))
                .maxAgeSeconds(600);
  }

  /** Mounts CORS and the credential check in front of every later route. */
  public void mount(Router router) {
    router.route().handler(this::cors);
    router.route().handler(this::authenticate);
  }

  /** The caller, once authenticated; null on open routes or with auth off. */
  public static Principal principal(RoutingContext ctx) {
    return ctx.get(PRINCIPAL);
  }

  /**
   * Takes one more rate-limit token for the caller of {@code ctx} (work a request does beyond its
   * admission, such as an export's reads): 0 when granted or the caller is not limited, else the
   * nanoseconds until a token is available (nothing is taken then).
   */
  public long rateWait(RoutingContext ctx) {
    Principal p = principal(ctx);
    return p == null ? 0 : gate.rateWait(p);
  }

  /** True when the request carries credentials in a header (a browser page cannot add those). */
  public static boolean hasHeaderCredentials(RoutingContext ctx) {
    return ctx.request().getHeader(HttpHeaders.AUTHORIZATION) != null
        || ctx.request().getHeader(API_KEY_HEADER) != null;
  }

  private void cors(RoutingContext ctx) {
    String origin = ctx.request().getHeader(HttpHeaders.ORIGIN);
    if (origin == null || Origins.sameOrigin(origin, ctx.request().getHeader(HttpHeaders.HOST))) {
      ctx.next();
    } else if (corsOrigins.contains(origin)) {
      cors.handle(ctx);
    } else if (ctx.request().method() == HttpMethod.OPTIONS
        && ctx.request().getHeader("Access-Control-Request-Method") != null) {
      throw new ApiException(
          403,
          "Forbidden",
          "origin not allowed (http.cors.allowed-origins): " + origin,
          null,
          null);
    } else {
      ctx.next(); // no CORS headers: the browser keeps the answer from that page
    }
  }

  private void authenticate(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    RouteRules.Rule rule = RouteRules.of(req.method().name(), ctx.normalizedPath());
    if (!gate.enabled() || rule.open()) {
      ctx.next();
      return;
    }
    Optional<Credential> credential =
        Credential.from(
            req.getHeader(HttpHeaders.AUTHORIZATION),
            req.getHeader(API_KEY_HEADER),
            rule.devices() == RouteRules.Devices.LIVE_FILTER ? req.getParam("ticket") : null);
    if (credential.isEmpty()) {
      throw unauthorized(
          ctx, "credentials required: send Authorization: Bearer <API key or JWT> or X-API-Key");
    }
    // the body must wait for the verdict (the body handler resumes the request later)
    if (!req.isEnded()) {
      req.pause();
    }
    Context here = vertx.getOrCreateContext();
    String peer = req.remoteAddress() == null ? null : req.remoteAddress().hostAddress();
    String client = gate.clientAddress(peer, req.headers().getAll(FORWARDED_FOR));
    gate.authenticate(credential.get(), client)
        .onComplete(ar -> onContext(here, () -> decide(ctx, rule, ar)));
  }

  /**
   * A key read that another event loop started completes there; each request goes on on its own.
   */
  private static void onContext(Context context, Runnable task) {
    if (Vertx.currentContext() == context) {
      task.run();
    } else {
      context.runOnContext(v -> task.run());
    }
  }

  private void decide(RoutingContext ctx, RouteRules.Rule rule, AsyncResult<Principal> ar) {
    HttpServerRequest req = ctx.request();
    if (ctx.response().closed()) {
      // the client left while its credential was checked: routing stops here, before any later
      // handler takes a budget, a slot or a rate token that no close handler would give back
      return;
    }
    if (!req.isEnded()) {
      req.resume();
    }
    if (ar.failed()) {
      ctx.fail(authFailure(ctx, ar.cause()));
      return;
    }
    try {
      admit(ctx, rule, ar.result());
    } catch (ApiException e) {
      ctx.fail(e);
      return;
    }
    ctx.put(PRINCIPAL, ar.result());
    ctx.next();
  }

  private void admit(RoutingContext ctx, RouteRules.Rule rule, Principal p) {
    long wait = gate.rateWait(p);
    if (wait > 0) {
      int seconds = (int) Math.max(1, (wait + 999_999_999L) / 1_000_000_000L);
      throw ApiException.tooManyRequests(
          "rate limit of " + p.ratePerSecond() + " requests/s for this credential", seconds);
    }
    if (!p.has(rule.scope())) {
      throw forbidden("this credential lacks the scope " + rule.scope().text());
    }
    if (!p.devices().bound()) {
      return;
    }
    switch (rule.devices()) {
      case PATH -> {
        if (!p.devices().allows(rule.deviceId())) {
          throw forbidden("this credential may not access device " + rule.deviceId());
        }
      }
      case LIVE_FILTER -> {
        String devices = ctx.request().getParam("devices");
        if (devices == null || devices.isBlank()) {
          throw forbidden("this credential is bound to devices " + p.devices() + ": give devices=");
        }
        for (String d : devices.split(",")) {
          if (!p.devices().allows(d.trim())) {
            throw forbidden("this credential may not watch device " + d.trim());
          }
        }
      }
      case ACROSS ->
          throw forbidden(
              "this credential is bound to devices "
                  + p.devices()
                  + "; this route reads across devices");
      case BODY, INHERITED -> {}
    }
  }

  /**
   * After the body handler on POST /api/v1/events: a device-bound credential may write only its
   * devices, and one foreign event refuses the whole batch. A body that does not parse is left to
   * the ingest handler, which lists its errors.
   */
  /**
   * Null when the credential may write every event of the batch; else a 403 naming each event whose
   * device lies outside the credential's device patterns (nothing of the batch is accepted).
   */
  public ApiException deviceRefusal(RoutingContext ctx, List<Event> events) {
    Principal p = principal(ctx);
    if (p == null || !p.devices().bound()) {
      return null;
    }
    JsonArray errors = new JsonArray();
    for (int i = 0; i < events.size(); i++) {
      if (!p.devices().allows(events.get(i).deviceId())) {
        errors.add(
            new JsonObject()
                .put("index", i)
                .put("field", "deviceId")
                .put(
                    "message", "device " + events.get(i).deviceId() + " is not this credential's"));
      }
    }
    if (errors.isEmpty()) {
      return null;
    }
    return new ApiException(
        403,
        "Forbidden",
        errors.size() + " event(s) for devices outside " + p.devices() + "; nothing was accepted",
        errors,
        null);
  }

  /**
   * Closes a live socket with 1008 once its credential expires or its key is revoked, checked every
   * auth.key-cache.refresh.
   */
  public void watch(RoutingContext ctx, ServerWebSocket ws) {
    Principal p = principal(ctx);
    if (p == null) {
      return;
    }
    long every = gate.config().keyCacheRefresh().toMillis();
    Context here = vertx.getOrCreateContext();
    vertx.setPeriodic(
        every,
        id -> {
          if (ws.isClosed()) {
            vertx.cancelTimer(id);
            return;
          }
          gate.stillValid(p)
              .onSuccess(
                  valid ->
                      onContext(
                          here,
                          () -> {
                            if (!valid && !ws.isClosed()) {
                              vertx.cancelTimer(id);
                              ws.close(POLICY_VIOLATION, "credentials expired or revoked");
                            }
                          }));
        });
  }

  private static ApiException authFailure(RoutingContext ctx, Throwable err) {
    if (err instanceof AuthException a) {
      if (a.reason() == AuthException.Reason.UNAVAILABLE) {
        return ApiException.unavailable(a.getMessage(), a.retryAfterSeconds());
      }
      if (a.reason() == AuthException.Reason.THROTTLED) {
        return ApiException.tooManyRequests(a.getMessage(), a.retryAfterSeconds());
      }
      ctx.response().putHeader("WWW-Authenticate", REALM + ", error=\"invalid_token\"");
      return new ApiException(401, "Unauthorized", a.getMessage(), null, null);
    }
    return ApiException.internal();
  }

  private static ApiException unauthorized(RoutingContext ctx, String detail) {
    ctx.response().putHeader("WWW-Authenticate", REALM);
    return new ApiException(401, "Unauthorized", detail, null, null);
  }

  private static ApiException forbidden(String detail) {
    return new ApiException(403, "Forbidden", detail, null, null);
  }
}
