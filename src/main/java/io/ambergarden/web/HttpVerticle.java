package io.ambergarden.web;

import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.query.Cursor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.micrometer.PrometheusScrapingHandler;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The HTTP API: routes, parameter validation, and hand-off to the other verticles over the event
 * bus.
 */
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
  private final Gatekeeper gate;
  private LiveSockets live;
  private long tlsWatch = -1;

  public HttpVerticle(
      AmberConfig config,
      EventParser parser,
      HealthState health,
      PrometheusMeterRegistry registry,
      Cursor cursor,
      LiveConnections liveConnections,
      AmberMeters meters,
      Gatekeeper gate) {
    this.gate = gate;
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
      producer =
          KafkaProducer.create(
              vertx,
              KafkaSettings.producer(config.kafka(), "amber-http-ingest"),
              new ByteArraySerializer(),
              new ByteArraySerializer());
    }
    Problems problems = new Problems(config.ingest().retryAfterSeconds());
    HttpIngestHandler ingest = new HttpIngestHandler(vertx, config, parser, producer, meters);
    router = Router.router(vertx);
    // two routes: Vert.x wants the body handler first on a route, and admission must run before the
    // body is read
    router.route().handler(RequestIds::assign);
    // CORS, then credentials, rate and scope in front of every route below (README "Security")
    AccessHandler access = new AccessHandler(vertx, gate, parser);
    access.mount(router);
    router.post("/api/v1/events").handler(ingest::admit);
    router
        .post("/api/v1/events")
        .handler(BodyHandler.create(false).setBodyLimit(config.http().maxBodyBytes()))
        .handler(access::checkBatchDevices)
        .handler(ingest::handle);
    new ReadRoutes(vertx, config, cursor).mount(router);
    new AdminKeyRoutes(gate).mount(router);
    if (config.live().enabled()) {
      live = new LiveSockets(vertx, config, liveConnections, access);
      router.get("/api/v1/live").handler(live::handle);
    }
    router.get("/health/live").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "UP")));
    router
        .get("/health/ready")
        .handler(ctx -> json(ctx, health.ready() ? 200 : 503, health.toJson()));
    if (registry != null) {
      router.get("/metrics").handler(PrometheusScrapingHandler.create(registry));
    }
    router.get("/openapi.json").handler(OpenApiDocument.load()::handle);
    router.get("/*").handler(StaticHandler.create("webroot").setCachingEnabled(false));
    router.route().failureHandler(problems::handle);
    for (int status : new int[] {404, 405, 413, 415, 500}) {
      router.errorHandler(status, problems::handle);
    }
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(config.http().host())
            .setPort(config.http().port())
            .setCompressionSupported(true)
            .setMaxWebSocketFrameSize(65536);
    HttpTls.apply(options, config.access().tls());
    server = vertx.createHttpServer(options);
    Future<Void> liveStarted = live == null ? Future.succeededFuture() : live.start();
    return liveStarted
        .compose(v -> server.requestHandler(router).listen())
        .onSuccess(s -> tlsWatch = HttpTls.watch(vertx, server, config.access().tls()));
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(tlsWatch);
    Future<Void> liveStopped = live == null ? Future.succeededFuture() : live.stop();
    // stop accepting at once; requests already in flight get a bounded time to finish (202 or
    // error)
    long drain = Math.max(1, config.shutdownGrace().toSeconds() / 3);
    Future<Void> closed =
        liveStopped.compose(
            v ->
                server == null
                    ? Future.succeededFuture()
                    : server.shutdown(drain, java.util.concurrent.TimeUnit.SECONDS));
    return producer == null ? closed : closed.eventually(() -> producer.close());
  }

  Router router() {
    return router;
  }

  public int actualPort() {
    return server.actualPort();
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(body.encode());
  }
}
