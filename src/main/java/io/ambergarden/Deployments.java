package io.ambergarden;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.health.ClockCheckVerticle;
import io.ambergarden.media.MediaVerticles;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The service's verticle deployments, undeployed in reverse order of deployment. */
final class Deployments {
  private static final Logger LOG = LoggerFactory.getLogger(Deployments.class);

  private final Vertx vertx;
  private final Deque<String> ids = new ArrayDeque<>();
  private volatile boolean stopped;

  Deployments(Vertx vertx) {
    this.vertx = vertx;
  }

  Future<Void> deploy(Supplier<Deployable> verticle, int instances) {
    return vertx
        .deployVerticle(verticle, new DeploymentOptions().setInstances(instances))
        .onSuccess(this::push)
        .mapEmpty();
  }

  Future<Void> deployAll(List<MediaVerticles.Deployment> all) {
    Future<Void> chain = Future.succeededFuture();
    for (MediaVerticles.Deployment d : all) {
      chain = chain.compose(v -> deploy(d.verticle(), d.instances()));
    }
    return chain;
  }

  /** The clock check, unless clock.check-interval is 0. */
  Future<Void> deployClockCheck(AmberConfig config, MeterRegistry registry) {
    return config.clock().enabled()
        ? deploy(() -> new ClockCheckVerticle(config, registry), 1)
        : Future.succeededFuture();
  }

  /** Undeploys everything, newest first; from now on {@link #stopped} is true. */
  Future<Void> stopAll() {
    stopped = true;
    return undeployAbove(0);
  }

  boolean stopped() {
    return stopped;
  }

  /** How many deployments there are now: {@link #undeployAbove} goes back to it. */
  synchronized int mark() {
    return ids.size();
  }

  /** Undeploys, newest first, every deployment made after {@code mark}; failures are logged. */
  Future<Void> undeployAbove(int mark) {
    Future<Void> chain = Future.succeededFuture();
    String id;
    while ((id = popAbove(mark)) != null) {
      String next = id;
      chain =
          chain.compose(
              v ->
                  vertx
                      .undeploy(next)
                      .recover(
                          err -> {
                            LOG.warn("undeploy failed: {}", err.toString());
                            return Future.succeededFuture();
                          }));
    }
    return chain;
  }

  private synchronized void push(String id) {
    ids.push(id);
  }

  private synchronized String popAbove(int mark) {
    return ids.size() > mark ? ids.pop() : null;
  }
}
