package io.ambergarden.web.read;

import io.ambergarden.bus.ExportPageQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.health.HealthState;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.ExportLoad;
import io.ambergarden.web.QueryParams;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * GET /api/v1/devices/{id}/events/export: a device's events over a range, oldest first, streamed as
 * NDJSON (page items, one a line) or CSV ({@link CsvRows}) by an {@link ExportStream}. Parameters
 * are checked first (a 400 names the parameter), then an export slot is taken ({@code
 * export.max-concurrent} per instance; 429 beyond it).
 */
public final class ExportRoutes implements EdgeRoutes {
  static final String PATH = "/api/v1/devices/:id/events/export";

  private final Vertx vertx;
  private final AmberConfig config;
  private final HealthState health;
  private final AccessHandler access;
  private final ExportLoad load;

  /** This verticle instance's running exports (at most export.max-concurrent), for the stop. */
  private final Set<ExportStream> running = new HashSet<>();

  public ExportRoutes(
      Vertx vertx, AmberConfig config, HealthState health, AccessHandler access, ExportLoad load) {
    this.vertx = vertx;
    this.config = config;
    this.health = health;
    this.access = access;
    this.load = load;
  }

  @Override
  public void mount(Router router) {
    router.get(PATH).handler(this::export);
  }

  @Override
  public Future<Void> beforeDrain() {
    // an export can run for minutes: the server's drain should not wait it out
    new ArrayList<>(running).forEach(ExportStream::abort);
    return Future.succeededFuture();
  }

  private void export(RoutingContext ctx) {
    ExportStream.Plan plan = plan(ctx, System.currentTimeMillis());
    if (health.cassandraKnownDown()) {
      throw ApiException.unavailable(
          "the store is unavailable; exports resume when it is back (ingest goes on)",
          config.ingest().retryAfterSeconds());
    }
    if (!load.tryStart()) {
      throw ApiException.tooManyRequests(
          "too many exports running on this instance (export.max-concurrent="
              + config.export().maxConcurrent()
              + "); try again shortly",
          1);
    }
    ExportStream stream = new ExportStream(vertx, ctx, access, load, plan, running::remove);
    running.add(stream);
    stream.start();
  }

  /** The export a request asks for, or a 400 naming the first parameter that is wrong. */
  ExportStream.Plan plan(RoutingContext ctx, long now) {
    String id = QueryParams.id("id", ctx.pathParam("id"));
    long oldest = now - config.events().retention().toMillis();
    String rawFormat = ctx.request().getParam("format");
    ExportFormat format = rawFormat == null ? ExportFormat.NDJSON : ExportFormat.named(rawFormat);
    if (format == null) {
      throw ApiException.invalidParameter("format", "must be ndjson or csv");
    }
    long from = Math.max(oldest, QueryParams.time("from", ctx.request().getParam("from"), oldest));
    long to =
        QueryParams.time(
            "to", ctx.request().getParam("to"), now + config.events().futureSkew().toMillis() + 1);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to, and within the retention");
    }
    List<String> metrics = metrics(ctx.request().getParam("metrics"));
    if (format == ExportFormat.CSV && metrics == null) {
      throw ApiException.invalidParameter(
          "metrics", "is required with format=csv: the metric columns, in order (metrics=a,b)");
    }
    return new ExportStream.Plan(
        new ExportPageQuery.Request(id, from, to, config.export().pageSize(), null),
        format,
        metrics == null ? List.of() : metrics,
        id + "-events." + format.extension,
        config.cassandra().requestTimeout().toMillis() * 3,
        config.export().stallTimeout().toMillis(),
        config.export().writeQueueBytes());
  }

  /** The metric names of {@code metrics=a,b}, in order, once each; null when not given. */
  private List<String> metrics(String raw) {
    if (raw == null) {
      return null;
    }
    Set<String> names = new LinkedHashSet<>();
    for (String part : raw.split(",", -1)) {
      if (!names.add(QueryParams.id("metrics", part.trim()))) {
        throw ApiException.invalidParameter("metrics", "names " + part.trim() + " twice");
      }
    }
    int max = config.export().maxMetrics();
    if (names.size() > max) {
      throw ApiException.invalidParameter(
          "metrics", "names at most " + max + " metrics (export.max-metrics)");
    }
    return List.copyOf(names);
  }
}
