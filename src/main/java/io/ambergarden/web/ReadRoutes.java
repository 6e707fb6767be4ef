package io.ambergarden.web;

import io.ambergarden.bus.AbnormalQuery;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DeviceLatestQuery;
import io.ambergarden.bus.EventApiJson;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.RollupsQuery;
import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.health.HealthState;
import io.ambergarden.query.Cursor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.function.Function;

/**
 * The read endpoints: validates parameters (a 400 names the parameter), asks the query verticles
 * with a typed request, and renders the typed reply. Paged reads carry their position in a cursor
 * signed for the query.
 */
final class ReadRoutes {
  private final Vertx vertx;
  private final AmberConfig config;
  private final Cursor cursor;
  private final HealthState health;

  ReadRoutes(Vertx vertx, AmberConfig config, Cursor cursor, HealthState health) {
    this.vertx = vertx;
    this.config = config;
    this.cursor = cursor;
    this.health = health;
  }

  void mount(Router router) {
    router.get("/api/v1/devices/:id/events").handler(this::deviceEvents);
    router
        .get("/api/v1/devices/:id/latest")
        .handler(
            ctx ->
                ask(
                    ctx,
                    DeviceLatestQuery.ADDRESS,
                    new DeviceLatestQuery.Request(QueryParams.id("id", ctx.pathParam("id"))),
                    (Event e) -> EventApiJson.of(e)));
    router.get("/api/v1/device-types/:type/events").handler(this::typeEvents);
    router
        .get("/api/v1/devices/:id/counters")
        .handler(
            ctx ->
                ask(
                    ctx,
                    DeviceCountersQuery.ADDRESS,
                    new DeviceCountersQuery.Request(QueryParams.id("id", ctx.pathParam("id"))),
                    DeviceCountersQuery.Reply::toJson));
    router.get("/api/v1/devices/:id/rollups").handler(this::rollups);
    router.get("/api/v1/stats/status").handler(this::statusStats);
    router.get("/api/v1/stats/abnormal").handler(this::abnormal);
  }

  private void deviceEvents(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    long oldest = now - config.events().retention().toMillis();
    String id = QueryParams.id("id", ctx.pathParam("id"));
    String rawFrom = ctx.request().getParam("from");
    String rawTo = ctx.request().getParam("to");
    long from = Math.max(oldest, QueryParams.time("from", rawFrom, oldest));
    long to = QueryParams.time("to", rawTo, now + config.events().futureSkew().toMillis() + 1);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to, and within the retention");
    }
    int limit = limit(ctx);
    String query =
        String.join(
            "|", "device", id, nullToEmpty(rawFrom), nullToEmpty(rawTo), Integer.toString(limit));
    PagePosition pos = position(ctx, query);
    paged(
        ctx,
        DeviceEventsQuery.ADDRESS,
        new DeviceEventsQuery.Request(id, from, to, limit, pos),
        query);
  }

  private void typeEvents(RoutingContext ctx) {
    String type = QueryParams.id("type", ctx.pathParam("type"));
    int limit = limit(ctx);
    String query = String.join("|", "type", type, Integer.toString(limit));
    PagePosition pos = position(ctx, query);
    paged(
        ctx,
        TypeEventsQuery.ADDRESS,
        new TypeEventsQuery.Request(type, Long.MIN_VALUE, limit, pos),
        query);
  }

  private int limit(RoutingContext ctx) {
    return QueryParams.limit(
        ctx.request().getParam("limit"), config.query().defaultLimit(), config.query().maxLimit());
  }

  /**
   * The cursor's position, verified against the query it must have been issued for; null without a
   * cursor.
   */
  private PagePosition position(RoutingContext ctx, String query) {
    String given = ctx.request().getParam("cursor");
    if (given == null) {
      return null;
    }
    return cursor
        .decode(query, given)
        .orElseThrow(
            () ->
                ApiException.invalidParameter(
                    "cursor",
                    "is not a cursor issued for this query (repeat the same parameters with it)"));
  }

  private void paged(RoutingContext ctx, String address, Object request, String query) {
    ask(
        ctx,
        address,
        request,
        (EventPage page) ->
            new JsonObject()
                .put("items", EventApiJson.of(page.items()))
                .put("next", page.next() == null ? null : cursor.encode(query, page.next())));
  }

  private void rollups(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    long oldest = now - config.events().retention().toMillis();
    String id = QueryParams.id("id", ctx.pathParam("id"));
    long from = Math.max(oldest, QueryParams.time("from", ctx.request().getParam("from"), oldest));
    long to = QueryParams.time("to", ctx.request().getParam("to"), now + 1);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to (and within the retention)");
    }
    ask(
        ctx,
        RollupsQuery.ADDRESS,
        new RollupsQuery.Request(id, from, to),
        RollupsQuery.Reply::toJson);
  }

  private void statusStats(RoutingContext ctx) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    LocalDate day = QueryParams.day("day", ctx.request().getParam("day"), today);
    long retentionDays = config.events().retention().toDays() + 1;
    if (day.isAfter(today.plusDays(1)) || day.isBefore(today.minusDays(retentionDays))) {
      throw ApiException.invalidParameter(
          "day", "must be within the retention (" + retentionDays + " days) and not in the future");
    }
    ask(
        ctx,
        StatusStatsQuery.ADDRESS,
        new StatusStatsQuery.Request(day),
        StatusStatsQuery.Reply::toJson);
  }

  private void abnormal(RoutingContext ctx) {
    int maxMinutes = (int) config.cassandra().abnormalRetention().toMinutes();
    int minutes =
        QueryParams.intIn("minutes", ctx.request().getParam("minutes"), 60, 1, maxMinutes);
    ask(
        ctx,
        AbnormalQuery.ADDRESS,
        new AbnormalQuery.Request(minutes),
        AbnormalQuery.Reply::toJson);
  }

  /** Sends a typed request; renders the typed reply as 200 JSON, or the failure as problem+json. */
  private <R> void ask(
      RoutingContext ctx, String address, Object request, Function<R, JsonObject> render) {
    if (health.cassandraKnownDown()) {
      // the probe already saw the store fail: answer now instead of after a driver timeout
      throw ApiException.unavailable(
          "the store is unavailable; reads resume when it is back (ingest goes on)",
          config.ingest().retryAfterSeconds());
    }
    Future<R> reply =
        vertx
            .eventBus()
            .<R>request(
                address,
                request,
                RequestIds.options(ctx, config.cassandra().requestTimeout().toMillis() * 3))
            .map(m -> m.body());
    reply.onSuccess(body -> HttpVerticle.json(ctx, 200, render.apply(body))).onFailure(ctx::fail);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
