package io.ambergarden.web.read;

import io.ambergarden.bus.AbnormalQuery;
import io.ambergarden.bus.ActivityQuery;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DeviceLatestQuery;
import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.FleetQuery;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.RollupsQuery;
import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.health.HealthState;
import io.ambergarden.metrics.ReadMeters;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.Cursor;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.QueryParams;
import io.ambergarden.web.RequestIds;
import io.ambergarden.web.Responses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
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
public final class ReadRoutes implements EdgeRoutes {
  /** The activity window is capped below devices_by_hour's 48 h TTL. */
  static final int MAX_ACTIVITY_MINUTES = 24 * 60;

  private final Vertx vertx;
  private final AmberConfig config;
  private final Cursor cursor;
  private final HealthState health;
  private final ReadMeters meters;

  public ReadRoutes(
      Vertx vertx, AmberConfig config, Cursor cursor, HealthState health, ReadMeters meters) {
    this.vertx = vertx;
    this.config = config;
    this.cursor = cursor;
    this.health = health;
    this.meters = meters;
  }

  @Override
  public void mount(Router router) {
    router.get("/api/v1/devices/:id/events").handler(this::deviceEvents);
    router
        .get("/api/v1/devices/:id/latest")
        .handler(
            ctx ->
                askEncoded(
                    ctx,
                    DeviceLatestQuery.ENDPOINT,
                    new DeviceLatestQuery.Request(QueryParams.id("id", ctx.pathParam("id"))),
                    (Event e) -> EventApiJson.of(e)));
    router.get("/api/v1/device-types/:type/events").handler(this::typeEvents);
    router
        .get("/api/v1/devices/:id/counters")
        .handler(
            ctx ->
                ask(
                    ctx,
                    DeviceCountersQuery.ENDPOINT,
                    new DeviceCountersQuery.Request(QueryParams.id("id", ctx.pathParam("id"))),
                    ReadJson::counters));
    router.get("/api/v1/devices/:id/rollups").handler(this::rollups);
    router.get("/api/v1/devices/:id/series").handler(this::series);
    router.get("/api/v1/stats/status").handler(this::statusStats);
    router.get("/api/v1/stats/abnormal").handler(this::abnormal);
    router.get("/api/v1/stats/activity").handler(this::activity);
    router.get("/api/v1/devices").handler(this::fleet);
  }

  /** Every device's current state, in device-id order, by type, status and abnormal. */
  private void fleet(RoutingContext ctx) {
    String type = optional(ctx, "type", v -> QueryParams.id("type", v));
    String status = optional(ctx, "status", v -> QueryParams.status("status", v));
    Boolean abnormal = optional(ctx, "abnormal", v -> QueryParams.bool("abnormal", v));
    int limit = limit(ctx);
    String query =
        String.join(
            "|",
            "fleet",
            nullToEmpty(type),
            nullToEmpty(status),
            abnormal == null ? "" : abnormal.toString(),
            Integer.toString(limit));
    PagePosition pos = position(ctx, query);
    ask(
        ctx,
        FleetQuery.ENDPOINT,
        new FleetQuery.Request(type, status, abnormal, limit, pos == null ? null : pos.key1()),
        (FleetQuery.Reply page) ->
            new JsonObject()
                .put("items", ReadJson.fleetItems(page))
                .put(
                    "next",
                    page.next() == null
                        ? null
                        : cursor.encode(query, new PagePosition(0, 0, page.next(), ""))));
  }

  private void activity(RoutingContext ctx) {
    int minutes =
        QueryParams.intIn(
            "minutes", ctx.request().getParam("minutes"), 60, 1, MAX_ACTIVITY_MINUTES);
    ask(ctx, ActivityQuery.ENDPOINT, new ActivityQuery.Request(minutes), ReadJson::activity);
  }

  private static <T> T optional(RoutingContext ctx, String name, Function<String, T> parse) {
    String v = ctx.request().getParam(name);
    return v == null ? null : parse.apply(v);
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
        DeviceEventsQuery.ENDPOINT,
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
        TypeEventsQuery.ENDPOINT,
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

  private <Q> void paged(
      RoutingContext ctx, Endpoint<Q, EventPage> endpoint, Q request, String query) {
    askEncoded(
        ctx,
        endpoint,
        request,
        (EventPage page) ->
            EventApiJson.page(
                page.items(), page.next() == null ? null : cursor.encode(query, page.next())));
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
    ask(ctx, RollupsQuery.ENDPOINT, new RollupsQuery.Request(id, from, to), ReadJson::rollups);
  }

  /** One metric as aggregates per aligned bucket of the step; the parameters as SeriesParams. */
  private void series(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    SeriesQuery.Request q =
        SeriesParams.of(
            QueryParams.id("id", ctx.pathParam("id")),
            ctx.request().getParam("metric"),
            ctx.request().getParam("from"),
            ctx.request().getParam("to"),
            ctx.request().getParam("step"),
            now - config.events().retention().toMillis(),
            now + config.events().futureSkew().toMillis() + 1,
            config.query().seriesMaxPoints());
    ask(ctx, SeriesQuery.ENDPOINT, q, ReadJson::series);
  }

  /**
   * One UTC day ({@code day}, flat as before), or the days of [from, to) with their totals, at most
   * {@code query.stats-max-days}; every day within the retention and not after tomorrow.
   */
  private void statusStats(RoutingContext ctx) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    long retentionDays = config.events().retention().toDays() + 1;
    LocalDate oldest = today.minusDays(retentionDays);
    LocalDate end = today.plusDays(2);
    String rawFrom = ctx.request().getParam("from");
    String rawTo = ctx.request().getParam("to");
    String rawDay = ctx.request().getParam("day");
    if (rawFrom == null && rawTo == null) {
      LocalDate day = QueryParams.day("day", rawDay, today);
      if (day.isBefore(oldest) || !day.isBefore(end)) {
        throw ApiException.invalidParameter(
            "day",
            "must be within the retention (" + retentionDays + " days) and not in the future");
      }
      ask(ctx, StatusStatsQuery.ENDPOINT, StatusStatsQuery.Request.day(day), ReadJson::statusDay);
      return;
    }
    if (rawDay != null) {
      throw ApiException.invalidParameter("day", "give either day, or from and to, not both");
    }
    if (rawFrom == null) {
      throw ApiException.invalidParameter("from", "is required with to");
    }
    LocalDate from = QueryParams.day("from", rawFrom, today);
    LocalDate to = QueryParams.day("to", rawTo, today.plusDays(1));
    int maxDays = config.query().statsMaxDays();
    if (from.isBefore(oldest)) {
      throw ApiException.invalidParameter(
          "from", "must be within the retention (" + retentionDays + " days)");
    }
    if (to.isAfter(end)) {
      throw ApiException.invalidParameter("to", "must not be after the day after tomorrow");
    }
    if (!from.isBefore(to)) {
      throw ApiException.invalidParameter("to", "must be after from (to is exclusive)");
    }
    if (from.plusDays(maxDays).isBefore(to)) {
      throw ApiException.invalidParameter(
          "to", "the range may span at most " + maxDays + " days (query.stats-max-days)");
    }
    ask(
        ctx,
        StatusStatsQuery.ENDPOINT,
        new StatusStatsQuery.Request(from, to),
        (StatusStatsQuery.Reply r) -> ReadJson.statusRange(r, from, to));
  }

  private void abnormal(RoutingContext ctx) {
    int maxMinutes = (int) config.cassandra().abnormalRetention().toMinutes();
    int minutes =
        QueryParams.intIn("minutes", ctx.request().getParam("minutes"), 60, 1, maxMinutes);
    ask(ctx, AbnormalQuery.ENDPOINT, new AbnormalQuery.Request(minutes), ReadJson::abnormal);
  }

  /** Sends a typed request; renders the typed reply as 200 JSON, or the failure as problem+json. */
  private <Q, R> void ask(
      RoutingContext ctx, Endpoint<Q, R> endpoint, Q request, Function<R, JsonObject> render) {
    askEncoded(ctx, endpoint, request, render.andThen(JsonObject::toBuffer));
  }

  /** As {@link #ask}, with a reply rendered straight to JSON bytes (the event reads). */
  private <Q, R> void askEncoded(
      RoutingContext ctx, Endpoint<Q, R> endpoint, Q request, Function<R, Buffer> render) {
    if (health.cassandraKnownDown()) {
      // the probe already saw the store fail: answer now instead of after a driver timeout
      throw ApiException.unavailable(
          "the store is unavailable; reads resume when it is back (ingest goes on)",
          config.ingest().retryAfterSeconds());
    }
    long start = System.nanoTime();
    Future<R> reply =
        endpoint.request(
            vertx, request, RequestIds.of(ctx), config.cassandra().requestTimeout().toMillis() * 3);
    reply
        .onSuccess(body -> Responses.json(ctx, 200, render.apply(body)))
        .onFailure(ctx::fail)
        .onComplete(r -> meters.answered(endpoint.address(), System.nanoTime() - start));
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
