package io.ambergarden.web;

import io.ambergarden.bus.Addresses;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.query.Cursor;
import io.ambergarden.event.EventParser;
import io.ambergarden.ingest.HttpIngestHandler;
import io.ambergarden.ingest.KafkaSettings;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.time.LocalDate;
import java.time.ZoneOffset;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.micrometer.PrometheusScrapingHandler;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The HTTP API: routes, parameter validation, and hand-off to the other verticles over the event bus. */
public final class HttpVerticle extends VerticleBase {
  private final AmberConfig config;
  private final EventParser parser;
  private final HealthState health;
  private final PrometheusMeterRegistry registry;
  private KafkaProducer<byte[], byte[]> producer;
  private HttpServer server;
  /** The routes, for the contract test that holds them against the OpenAPI document. */
  private Router router;

  private final Cursor cursor;
  private final AmberMeters meters;
  private final LiveConnections liveConnections;
  private LiveSockets live;

  public HttpVerticle(AmberConfig config, EventParser parser, HealthState health, PrometheusMeterRegistry registry,
                      Cursor cursor, LiveConnections liveConnections, AmberMeters meters) {
    this.meters = meters;
    this.cursor = cursor;
    this.liveConnections = liveConnections;
    this.config = config;
    this.parser = parser;
    this.health = health;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    if (config.ingest().mode() == AmberConfig.IngestMode.KAFKA) {
      producer = KafkaProducer.create(vertx, KafkaSettings.producer(config.kafka(), "amber-http-ingest"),
          new ByteArraySerializer(), new ByteArraySerializer());
    }
    Problems problems = new Problems(config.ingest().retryAfterSeconds());
    HttpIngestHandler ingest = new HttpIngestHandler(vertx, config, parser, producer, meters);
    router = Router.router(vertx);
    // two routes: Vert.x wants the body handler first on a route, and admission must run before the body is read
    router.route().handler(RequestIds::assign);
    router.post("/api/v1/events").handler(ingest::admit);
    router.post("/api/v1/events").handler(BodyHandler.create(false).setBodyLimit(config.http().maxBodyBytes()))
        .handler(ingest::handle);
    router.get("/api/v1/devices/:id/events").handler(this::deviceEvents);
    router.get("/api/v1/devices/:id/latest").handler(this::deviceLatest);
    router.get("/api/v1/device-types/:type/events").handler(this::typeEvents);
    if (config.live().enabled()) {
      live = new LiveSockets(vertx, config, liveConnections);
      router.get("/api/v1/live").handler(live::handle);
    }
    router.get("/api/v1/devices/:id/counters").handler(ctx -> ask(ctx, Addresses.QUERY_DEVICE_COUNTERS,
        new JsonObject().put("deviceId", QueryParams.id("id", ctx.pathParam("id")))));
    router.get("/api/v1/devices/:id/rollups").handler(this::rollups);
    router.get("/api/v1/stats/status").handler(this::statusStats);
    router.get("/api/v1/stats/abnormal").handler(this::abnormal);
    router.get("/health/live").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "UP")));
    router.get("/health/ready").handler(ctx -> json(ctx, health.ready() ? 200 : 503, health.toJson()));
    if (registry != null) {
      router.get("/metrics").handler(PrometheusScrapingHandler.create(registry));
    }
    router.get("/openapi.json").handler(OpenApiDocument.load()::handle);
    router.get("/*").handler(StaticHandler.create("webroot").setCachingEnabled(false));
    router.route().failureHandler(problems::handle);
    for (int status : new int[] {404, 405, 413, 415, 500}) {
      router.errorHandler(status, problems::handle);
    }
    server = vertx.createHttpServer(new HttpServerOptions().setHost(config.http().host())
        .setPort(config.http().port()).setCompressionSupported(true).setMaxWebSocketFrameSize(65536));
    Future<Void> liveStarted = live == null ? Future.succeededFuture() : live.start();
    return liveStarted.compose(v -> server.requestHandler(router).listen());
  }

  @Override
  public Future<?> stop() {
    Future<Void> liveStopped = live == null ? Future.succeededFuture() : live.stop();
    // stop accepting at once; requests already in flight get a bounded time to finish (202 or error)
    long drain = Math.max(1, config.shutdownGrace().toSeconds() / 3);
    Future<Void> closed = liveStopped.compose(v -> server == null ? Future.succeededFuture()
        : server.shutdown(drain, java.util.concurrent.TimeUnit.SECONDS));
    return producer == null ? closed : closed.eventually(() -> producer.close());
  }

  Router router() {
    return router;
  }

  public int actualPort() {
    return server.actualPort();
  }

  private void deviceEvents(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    AmberConfig.Events ev = config.events();
    String id = QueryParams.id("id", ctx.pathParam("id"));
    String rawFrom = ctx.request().getParam("from");
    String rawTo = ctx.request().getParam("to");
    long from = Math.max(now - ev.retention().toMillis(), QueryParams.time("from", rawFrom, now - ev.retention().toMillis()));
    long to = QueryParams.time("to", rawTo, now + ev.futureSkew().toMillis() + 1);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to, and within the retention");
    }
    int limit = QueryParams.limit(ctx.request().getParam("limit"), config.query().defaultLimit(),
        config.query().maxLimit());
    String query = String.join("|", "device", id, nullToEmpty(rawFrom), nullToEmpty(rawTo), Integer.toString(limit));
    JsonObject q = new JsonObject().put("deviceId", id).put("from", from).put("to", to).put("limit", limit);
    paged(ctx, Addresses.QUERY_DEVICE_EVENTS, query, q);
  }

  private void typeEvents(RoutingContext ctx) {
    String type = QueryParams.id("type", ctx.pathParam("type"));
    int limit = QueryParams.limit(ctx.request().getParam("limit"), config.query().defaultLimit(),
        config.query().maxLimit());
    String query = String.join("|", "type", type, Integer.toString(limit));
    paged(ctx, Addresses.QUERY_TYPE_EVENTS, query, new JsonObject().put("deviceType", type).put("limit", limit));
  }

  /** Verifies the cursor against the query, asks the query verticle, and signs the next position. */
  private void paged(RoutingContext ctx, String address, String query, JsonObject q) {
    String given = ctx.request().getParam("cursor");
    if (given != null) {
      Cursor.Position pos = cursor.decode(query, given).orElseThrow(() -> ApiException.invalidParameter("cursor",
          "is not a cursor issued for this query (repeat the same parameters with it)"));
      q.put("pos", pos.toJson());
    }
    DeliveryOptions opts = RequestIds.options(ctx, config.cassandra().requestTimeout().toMillis() * 3);
    vertx.eventBus().<JsonObject>request(address, q, opts)
        .onSuccess(reply -> {
          JsonObject page = reply.body();
          Cursor.Position next = Cursor.Position.fromJson(page.getJsonObject("next"));
          json(ctx, 200, new JsonObject().put("items", page.getJsonArray("items"))
              .put("next", next == null ? null : cursor.encode(query, next)));
        })
        .onFailure(ctx::fail);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
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
    ask(ctx, Addresses.QUERY_ROLLUPS, new JsonObject().put("deviceId", id).put("from", from).put("to", to));
  }

  private void statusStats(RoutingContext ctx) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    LocalDate day = QueryParams.day("day", ctx.request().getParam("day"), today);
    long retentionDays = config.events().retention().toDays() + 1;
    if (day.isAfter(today.plusDays(1)) || day.isBefore(today.minusDays(retentionDays))) {
      throw ApiException.invalidParameter("day", "must be within the retention (" + retentionDays + " days) and not in the future");
    }
    ask(ctx, Addresses.QUERY_STATUS_STATS, new JsonObject().put("day", day.toString()));
  }

  private void abnormal(RoutingContext ctx) {
    int maxMinutes = (int) config.cassandra().abnormalRetention().toMinutes();
    int minutes = QueryParams.intIn("minutes", ctx.request().getParam("minutes"), 60, 1, maxMinutes);
    ask(ctx, Addresses.QUERY_ABNORMAL, new JsonObject().put("minutes", minutes));
  }

  private void deviceLatest(RoutingContext ctx) {
    String id = QueryParams.id("id", ctx.pathParam("id"));
    ask(ctx, Addresses.QUERY_DEVICE_LATEST, new JsonObject().put("deviceId", id));
  }

  private void ask(RoutingContext ctx, String address, JsonObject query) {
    DeliveryOptions opts = RequestIds.options(ctx, config.cassandra().requestTimeout().toMillis() * 3);
    vertx.eventBus().<JsonObject>request(address, query, opts)
        .onSuccess(reply -> json(ctx, 200, reply.body()))
        .onFailure(ctx::fail);
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
