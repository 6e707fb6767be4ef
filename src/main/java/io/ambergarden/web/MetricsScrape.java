package io.ambergarden.web;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * GET /metrics: the Prometheus text, rendered on a worker thread. A scrape walks every meter and
 * its histograms; on the event loop it would hold every request queued there (reads, ingest) for
 * its whole duration, once per scrape. Unordered, so concurrent scrapes do not queue behind each
 * other.
 */
final class MetricsScrape implements Handler<RoutingContext> {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private final PrometheusMeterRegistry registry;

  MetricsScrape(PrometheusMeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void handle(RoutingContext ctx) {
    ctx.vertx()
        .executeBlocking(registry::scrape, false)
        .onSuccess(
            text -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, CONTENT_TYPE).end(text))
        .onFailure(ctx::fail);
  }
}
