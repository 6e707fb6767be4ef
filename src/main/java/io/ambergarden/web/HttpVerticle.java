package io.ambergarden.web;

import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.health.HealthState;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP server: request ids, the connection cap and the access gate in front of every feature's
 * routes ({@link EdgeRoutes}), then health, metrics, the OpenAPI document, the console and problem
 * answers.
 */
public final class HttpVerticle extends VerticleBase {
  private final AmberConfig config;
  private final HealthState health;
  private final PrometheusMeterRegistry registry;
  private final HttpBudgets budgets;
  private final Gatekeeper gate;
  private final List<EdgeRoutes.Factory> features;
  private final List<EdgeRoutes> routes = new ArrayList<>();
  private HttpServer server;

  /** The routes, for the contract test that holds them against the OpenAPI document. */
  private Router router;

  private long tlsWatch = -1;

  /** This instance's connections opened past http.max-connections: their requests get 503. */
  private final Set<HttpConnection> overCap = new HashSet<>();

  /** {@code features} are mounted in this order, after the access gate. */
  public HttpVerticle(
      AmberConfig config,
      HealthState health,
      PrometheusMeterRegistry registry,
      HttpBudgets budgets,
      Gatekeeper gate,
      List<EdgeRoutes.Factory> features) {
    this.config = config;
    this.health = health;
    this.registry = registry;
    this.budgets = budgets;
    this.gate = gate;
    this.features = List.copyOf(features);
  }

  @Override
  public Future<?> start() {
    Problems problems = new Problems(config.ingest().retryAfterSeconds());
    AccessHandler access = new AccessHandler(vertx, gate);
    Refusals refusals = new Refusals(vertx, config.http());
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
    // CORS, then credentials, rate and scope in front of every route below
    // (docs/operations/security.md)
    access.mount(router);
    for (EdgeRoutes.Factory f : features) {
      EdgeRoutes r = f.create(vertx, access);
      routes.add(r);
      r.mount(router);
    }
    router
        .get("/health/live")
        .handler(ctx -> Responses.json(ctx, 200, new JsonObject().put("status", "UP")));
    router
        .get("/health/ready")
        .handler(ctx -> Responses.json(ctx, health.ready() ? 200 : 503, health.toJson()));
    if (registry != null) {
      router.get("/metrics").handler(new MetricsScrape(registry));
    }
    router.get("/openapi.json").handler(OpenApiDocument.load()::handle);
    ConsoleRoutes.mount(router);
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
    return Future.all(routes.stream().map(EdgeRoutes::start).toList())
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
    // stop accepting at once; requests already in flight get a bounded time to finish (202 or
    // error)
    long drain = Math.max(1, config.shutdownGrace().toSeconds() / 3);
    return Future.all(routes.stream().map(EdgeRoutes::beforeDrain).toList())
        .transform(
            ar ->
                server == null
                    ? Future.succeededFuture()
                    : server.shutdown(drain, TimeUnit.SECONDS))
        .eventually(() -> Future.join(routes.stream().map(EdgeRoutes::stop).toList()));
  }

  Router router() {
    return router;
  }

  /** This instance's routes of one feature, for tests. */
  public <T extends EdgeRoutes> T routes(Class<T> type) {
    return routes.stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
  }

  /** The port listened on; -1 before the server listens. */
  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }
}
