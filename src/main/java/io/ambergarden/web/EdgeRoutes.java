package io.ambergarden.web;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/**
 * One feature's routes on the edge (ingest, reads, live, images, key admin). {@link HttpVerticle}
 * builds each feature once per verticle instance, mounts it behind request ids and the access gate,
 * and starts it before listening.
 */
public interface EdgeRoutes {
  void mount(Router router);

  default Future<Void> start() {
    return Future.succeededFuture();
  }

  /** Ends long-lived exchanges (WebSockets) so that the server's drain does not wait them out. */
  default Future<Void> beforeDrain() {
    return Future.succeededFuture();
  }

  /** After the server drained: releases what the routes hold (producers, clients). */
  default Future<Void> stop() {
    return Future.succeededFuture();
  }

  /** Builds a feature's routes for one verticle instance. */
  @FunctionalInterface
  interface Factory {
    EdgeRoutes create(Vertx vertx, AccessHandler access);
  }
}
