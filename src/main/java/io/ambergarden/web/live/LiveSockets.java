package io.ambergarden.web.live;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.RequestIds;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * WS /api/v1/live for one HTTP verticle instance: checks the Origin and the connection cap, replays
 * stored events for since=, then forwards live events that match each client's filter. Every
 * client's outbound queue is bounded: a client that cannot keep up is closed with 1013 (try again
 * later).
 */
public final class LiveSockets implements EdgeRoutes {
  private final Vertx vertx;
  private final AmberConfig config;
  private final LiveConnections connections;
  private final AccessHandler access;
  private final Set<LiveSession> sessions = new HashSet<>();
  private final ReplayReader replayReader;
  private MessageConsumer<DurableEvents> live;
  private long heartbeat = -1;

  private final HttpBudgets budgets;
  private final BooleanSupplier storeDown;

  public LiveSockets(
      Vertx vertx,
      AmberConfig config,
      LiveConnections connections,
      HttpBudgets budgets,
      BooleanSupplier storeDown,
      AccessHandler access) {
    this.access = access;
    this.vertx = vertx;
    this.config = config;
    this.connections = connections;
    this.budgets = budgets;
    this.storeDown = storeDown;
    this.replayReader = new ReplayReader(vertx, config);
  }

  @Override
  public void mount(Router router) {
    router.get("/api/v1/live").handler(this::handle);
  }

  @Override
  public Future<Void> start() {
    live =
        vertx
            .eventBus()
            .consumer(Addresses.LIVE_EVENTS, m -> m.body().events().forEach(this::dispatch));
    heartbeat =
        vertx.setPeriodic(
            config.live().heartbeatInterval().toMillis(),
            id -> {
              String beat =
                  new JsonObject()
                      .put("type", "heartbeat")
                      .put("ts", System.currentTimeMillis())
                      .encode();
              List.copyOf(sessions).forEach(s -> s.sendText(beat));
            });
    return live.completion();
  }

  @Override
  public Future<Void> beforeDrain() {
    vertx.cancelTimer(heartbeat);
    List.copyOf(sessions).forEach(s -> s.close((short) 1001, "server shutting down"));
    return live == null ? Future.succeededFuture() : live.unregister();
  }

  void handle(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    var req = ctx.request();
    if (!LiveHandshake.isUpgrade(
        req.getHeader(HttpHeaders.CONNECTION), req.getHeader(HttpHeaders.UPGRADE))) {
      // Vert.x would answer a bare 400 without a body; every error here is a problem
      throw ApiException.invalidParameter(
          "Upgrade",
          "this is a WebSocket endpoint: send Connection: Upgrade and Upgrade: websocket");
    }
    String origin = req.getHeader(HttpHeaders.ORIGIN);
    if (origin == null && config.access().enabled() && !AccessHandler.hasHeaderCredentials(ctx)) {
      // not a browser (browsers always send Origin), so it must say who it is in a header; with
      // auth off nobody says who they are
      throw new ApiException(
          403, "Forbidden", "no Origin: send credentials in the Authorization header", null, null);
    }
    if (!LiveHandshake.originAllowed(
        origin, req.getHeader(HttpHeaders.HOST), config.live().allowedOrigins())) {
      throw new ApiException(403, "Forbidden", "origin not allowed: " + origin, null, null);
    }
    LiveFilter filter =
        LiveFilter.parse(
            req.getParam("devices"),
            req.getParam("types"),
            req.getParam("codes"),
            req.getParam("since"),
            config.live().maxFilterValues(),
            now,
            config.events().retention().toMillis());
    if (filter.since() != null && storeDown.getAsBoolean()) {
      throw ApiException.unavailable(
          "the store is unavailable: since= cannot be replayed now (connect without since= for"
              + " live events)",
          config.ingest().retryAfterSeconds());
    }
    if (!connections.tryOpen()) {
      throw ApiException.unavailable(
          "too many live-feed clients", config.ingest().retryAfterSeconds());
    }
    req.toWebSocket()
        .onFailure(err -> connections.closed())
        .onSuccess(
            ws -> {
              ws.setWriteQueueMaxSize(config.live().maxBufferedBytes());
              access.watch(ctx, ws);
              LiveSession s =
                  new LiveSession(
                      vertx, ws, filter, RequestIds.of(ctx), config.live(), connections, budgets);
              sessions.add(s);
              ws.closeHandler(
                  v -> {
                    sessions.remove(s);
                    s.closed();
                    connections.closed();
                  });
              // an oversized frame arrives here as a protocol violation carrying 1009
              ws.exceptionHandler(
                  err ->
                      s.close(
                          err instanceof CorruptedWebSocketFrameException c
                              ? (short) c.closeStatus().code()
                              : LiveSession.NORMAL,
                          err instanceof CorruptedWebSocketFrameException ? "bad frame" : ""));
              // the feed is push-only: data from the client is refused, never buffered
              ws.handler(
                  buf -> s.close(LiveSession.UNSUPPORTED_DATA, "push-only feed: send no data"));
              if (filter.since() != null) {
                s.replay(now, replayReader);
              } else {
                s.goLive();
              }
            });
  }

  private void dispatch(Event e) {
    for (LiveSession s : sessions) {
      s.onLive(e);
    }
  }
}
