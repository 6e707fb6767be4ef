package io.ambergarden.web;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.health.HealthState;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/**
 * The management port (http.management-port): /metrics and the health probes, without credentials,
 * for Prometheus scraping the pod. Nothing else is served here, and the Kubernetes Service does not
 * expose this port.
 */
public final class ManagementVerticle extends VerticleBase {
  private final AmberConfig config;
  private final HealthState health;
  private final PrometheusMeterRegistry registry;
  private HttpServer server;

  public ManagementVerticle(
      AmberConfig config, HealthState health, PrometheusMeterRegistry registry) {
    this.config = config;
    this.health = health;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.get("/metrics").handler(new MetricsScrape(registry));
    router
        .get("/health/live")
        .handler(ctx -> Responses.json(ctx, 200, new JsonObject().put("status", "UP")));
    router
        .get("/health/ready")
        .handler(ctx -> Responses.json(ctx, health.ready() ? 200 : 503, health.toJson()));
    server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setHost(config.http().host())
                .setPort(config.access().managementPort())
                // scrapers and probes speak HTTP/1.1; nothing to upgrade to
                .setHttp2ClearTextEnabled(false));
    return server.requestHandler(router).listen();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  public int actualPort() {
    return server.actualPort();
  }
}
