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
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.kafka.client.producer.KafkaProducer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
  private KafkaHandOff handOff;
  private HttpServer server;

  /** The routes, for the contract test that holds them against the OpenAPI document. */
  private Router router;

  private final Cursor cursor;
  private final AmberMeters meters;
  private final LiveConnections liveConnections;
  private final HttpBudgets budgets;
  private final Gatekeeper gate;
  private LiveSockets live;
  private ImageRoutes images;
  private long tlsWatch = -1;

  /** This instance's connections opened past http.max-connections: their requests get 503. */
  private final Set<HttpConnection> overCap = new HashSet<>();

  public HttpVerticle(
      AmberConfig config,
      EventParser parser,
      HealthState health,
      PrometheusMeterRegistry registry,
      Cursor cursor,
      LiveConnections liveConnections,
      AmberMeters meters,
      HttpBudgets budgets,
      Gatekeeper gate) {
    this.gate = gate;
    this.meters = meters;
    this.budgets = budgets;
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
      handOff =
          new KafkaHandOff(
              producer.unwrap(), "amber-http-produce-" + context.deploymentID(), System::nanoTime);
    }
    Problems problems = new Problems(config.ingest().retryAfterSeconds());
    AccessHandler access = new AccessHandler(vertx, gate);
    HttpIngestHandler ingest =
        new HttpIngestHandler(
            vertx, config, parser, handOff, meters, budgets, access::deviceRefusal);
    IngestBodyReader refusals = new IngestBodyReader(vertx, config, budgets);
    router = Router.router(vertx);
    router.route().handler(RequestIds::assign);
    router
        .route()
        .handler(
            ctx -> {
              // probes still get through, so a full house never looks like a dead pod
              if (!overCap.isEmpty()
                  && overCap.contains(ctx.request().connection())
                  && !ctx.request().path().startsWith("/health/")) {
                refusals.refuse(
                    ctx,
                    ApiException.unavailable(
                        "too many connections", config.ingest().retryAfterSeconds()));
              } else {
                ctx.next();
              }
            });
    // CORS, then credentials, rate and scope in front of every route below (README "Security")
    access.mount(router);
    // admission runs before the body is read; the handler reads the body itself
    router.post("/api/v1/events").handler(ingest::admit);
    new ReadRoutes(vertx, config, cursor, health, meters.reads()).mount(router);
    new AdminKeyRoutes(gate).mount(router);
    images = new ImageRoutes(vertx, config, cursor, registry);
    images.mount(router);
    if (config.live().enabled()) {
      live =
          new LiveSockets(
              vertx, config, liveConnections, budgets, health::cassandraKnownDown, access);
      router.get("/api/v1/live").handler(live::handle);
    }
    router.get("/health/live").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "UP")));
    router
        .get("/health/ready")
        .handler(ctx -> json(ctx, health.ready() ? 200 : 503, health.toJson()));
    if (registry != null) {
      router.get("/metrics").handler(new MetricsScrape(registry));
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
            // 0: a port chosen at listen; several instances share it as a negative port (Vert.x)
            .setPort(
                config.http().port() == 0 && config.http().instances() > 1
                    ? -1
                    : config.http().port())
            .setCompressionSupported(true)
            .setMaxWebSocketFrameSize(65536)
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
            .setIdleTimeout((int) config.http().idleTimeout().toMillis());
    HttpTls.apply(options, config.access().tls());
    server = vertx.createHttpServer(options);
    server.connectionHandler(this::onConnection);
    Future<Void> liveStarted = live == null ? Future.succeededFuture() : live.start();
    return liveStarted
        .compose(v -> server.requestHandler(router).listen())
        .onSuccess(s -> tlsWatch = HttpTls.watch(vertx, server, config.access().tls()));
  }

  /**
   * Counts the connection against http.max-connections. One past the cap is kept just long enough
   * to answer its request with 503 (a client sees an answer, not a reset); beyond twice the cap
   * connections are closed at once.
   */
  private void onConnection(HttpConnection conn) {
    if (budgets.connections().tryAcquire(1)) {
      conn.closeHandler(v -> budgets.connections().release(1));
      return;
    }
    budgets.shed(HttpBudgets.Shed.CONNECTIONS);
    if (overCap.size() >= budgets.connections().max()) {
      conn.close();
      return;
    }
    overCap.add(conn);
    conn.closeHandler(v -> overCap.remove(conn));
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
                    : server.shutdown(drain, TimeUnit.SECONDS));
    Future<Void> imagesClosed =
        closed.eventually(() -> images == null ? Future.succeededFuture() : images.close());
    if (producer == null) {
      return imagesClosed;
    }
    return imagesClosed.eventually(
        () -> {
          handOff.close(); // events still waiting are dropped, never sent after the answer
          return producer.close();
        });
  }

  Router router() {
    return router;
  }

  /** This instance's image uploads holding a slot, for tests. */
  int uploadsInFlight() {
    return images.uploadsInFlight();
  }

  public int actualPort() {
    return server.actualPort();
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    json(ctx, status, body.toBuffer());
  }

  static void json(RoutingContext ctx, int status, Buffer body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }
}
