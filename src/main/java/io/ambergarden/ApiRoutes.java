package io.ambergarden;

import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.web.Cursor;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.HttpVerticle;
import io.ambergarden.web.access.AdminKeyRoutes;
import io.ambergarden.web.images.ImageRoutes;
import io.ambergarden.web.ingest.IngestRoutes;
import io.ambergarden.web.live.LiveSockets;
import io.ambergarden.web.read.ExportRoutes;
import io.ambergarden.web.read.ReadRoutes;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The public API: each feature's routes on the edge, in the order the server mounts them. */
public final class ApiRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(ApiRoutes.class);

  private ApiRoutes() {}

  /** Signs paging cursors with query.cursor-key; without one, with a key of this process only. */
  public static Cursor cursor(AmberConfig config) {
    if (!config.query().cursorKey().isEmpty()) {
      return new Cursor(config.query().cursorKey().getBytes(StandardCharsets.UTF_8));
    }
    LOG.warn(
        "query.cursor-key is not set: paging cursors are signed with a random key and work only on"
            + " this instance");
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    return new Cursor(random);
  }

  /** One HTTP verticle serving every feature; deploy as many instances as http.instances. */
  public static HttpVerticle httpVerticle(
      AmberConfig config,
      EventParser parser,
      HealthState health,
      PrometheusMeterRegistry registry,
      Cursor cursor,
      LiveConnections liveConnections,
      AmberMeters meters,
      HttpBudgets budgets,
      Gatekeeper gate) {
    List<EdgeRoutes.Factory> features = new ArrayList<>();
    features.add(
        (vertx, access) -> new IngestRoutes(vertx, config, parser, meters, budgets, access));
    features.add((vertx, access) -> new ReadRoutes(vertx, config, cursor, health, meters.reads()));
    features.add(
        (vertx, access) -> new ExportRoutes(vertx, config, health, access, budgets.exports()));
    features.add((vertx, access) -> new AdminKeyRoutes(gate));
    features.add((vertx, access) -> new ImageRoutes(vertx, config, cursor, registry));
    if (config.live().enabled()) {
      features.add(
          (vertx, access) ->
              new LiveSockets(
                  vertx, config, liveConnections, budgets, health::cassandraKnownDown, access));
    }
    return new HttpVerticle(config, health, registry, budgets, gate, features);
  }
}
