package io.ambergarden.web.live;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventJson;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.AdmissionBudget;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.RequestIds;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * WS /api/v1/live for one HTTP verticle instance: checks the Origin and the connection cap, replays
 * stored events for since=, then forwards live events that match each client's filter. Every
 * client's outbound queue is bounded: a client that cannot keep up is closed with 1013 (try again
 * later).
 */
public final class LiveSockets implements EdgeRoutes {
  static final short SLOW_CONSUMER = 1013;
  static final short POLICY = 1008;
  static final short UNSUPPORTED_DATA = 1003;
  static final short NORMAL = 1000;

  /**
   * Longer than the live topic's fan-out lag, so a replayed event's live copy is never shown twice.
   */
  static final long REPLAY_DEDUP_MILLIS = 30_000;

  /** Events per stored page read during a replay. */
  static final int REPLAY_PAGE = 1000;

  private final Vertx vertx;
  private final AmberConfig config;
  private final LiveConnections connections;
  private final AccessHandler access;
  private final Set<Session> sessions = new HashSet<>();
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
    List.copyOf(sessions).forEach(s -> s.ws.close((short) 1001, "server shutting down"));
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
              Session s = new Session(ws, filter, RequestIds.of(ctx));
              sessions.add(s);
              ws.closeHandler(
                  v -> {
                    sessions.remove(s);
                    s.releaseReplay();
                    connections.closed();
                  });
              // an oversized frame arrives here as a protocol violation carrying 1009
              ws.exceptionHandler(
                  err ->
                      s.close(
                          err instanceof CorruptedWebSocketFrameException c
                              ? (short) c.closeStatus().code()
                              : NORMAL,
                          err instanceof CorruptedWebSocketFrameException ? "bad frame" : ""));
              // the feed is push-only: data from the client is refused, never buffered
              ws.handler(buf -> s.close(UNSUPPORTED_DATA, "push-only feed: send no data"));
              if (filter.since() != null) {
                s.replay(now);
              } else {
                s.sendText(new JsonObject().put("type", "live").encode());
              }
            });
  }

  private void dispatch(Event e) {
    for (Session s : sessions) {
      s.onLive(e);
    }
  }

  static String identity(Event e) {
    return e.deviceId() + '\u0000' + e.ts() + '\u0000' + e.eventId();
  }

  private final class Session {
    final ServerWebSocket ws;
    final LiveFilter filter;

    /** The upgrade request's id: the replay's reads carry it. */
    final String requestId;

    /** Live events that arrived during the replay; bounded by live.max-replay-events. */
    List<Event> held;

    /** The replay's share of live.replay-max-bytes: events read and held, then the dedup set. */
    AdmissionBudget.Reservation replayBytes;

    /**
     * Identities replayed from the store; their live copies may still be on their way, for a while.
     */
    Set<String> replayed;

    boolean closed;

    Session(ServerWebSocket ws, LiveFilter filter, String requestId) {
      this.ws = ws;
      this.filter = filter;
      this.requestId = requestId;
    }

    void onLive(Event e) {
      if (closed || !filter.matches(e)) {
        return;
      }
      if (held != null) {
        if (held.size() >= config.live().maxReplayEvents()) {
          slow();
          return;
        }
        if (!replayBytes.growTo(replayBytes.held() + ReplayMemory.heapBytes(e))) {
          busy();
          return;
        }
        held.add(e);
        return;
      }
      if (replayed != null && replayed.contains(identity(e))) {
        return;
      }
      sendEvent(e);
    }

    void sendEvent(Event e) {
      sendText("{\"type\":\"event\",\"event\":" + EventJson.toJson(e) + "}");
    }

    void sendText(String text) {
      // the peer may have gone before our close handler ran: writeQueueFull() would throw then
      if (closed || ws.isClosed()) {
        return;
      }
      if (ws.writeQueueFull()) {
        slow();
        return;
      }
      ws.writeTextMessage(text);
    }

    void slow() {
      if (!closed) {
        connections.slowConsumerClosed();
        close(SLOW_CONSUMER, "client too slow: outbound buffer full");
      }
    }

    /** Refuses the replay: the client may come back later (1013, try again later). */
    void busy() {
      if (!closed) {
        budgets.shed(HttpBudgets.Shed.REPLAY_BYTES);
        sendText(
            new JsonObject()
                .put("type", "error")
                .put("message", new ReplayMemory.Busy().getMessage())
                .encode());
        held = null;
        releaseReplay();
        close(SLOW_CONSUMER, "replay memory at its limit; try again later");
      }
    }

    void releaseReplay() {
      if (replayBytes != null) {
        replayBytes.release();
      }
    }

    void close(short code, String reason) {
      if (!closed) {
        closed = true;
        ws.close(code, reason);
      }
    }

    /**
     * Subscribed first (held), then reads the store, so nothing durable after connect can fall in
     * between.
     */
    void replay(long now) {
      replayBytes = budgets.replayBytes().reserve(0);
      held = new ArrayList<>();
      List<Event> stored = new ArrayList<>();
      long to = now + config.events().futureSkew().toMillis() + 1;
      List<Future<Void>> reads = new ArrayList<>();
      for (String d : filter.devices()) {
        reads.add(
            page(
                pos -> new DeviceEventsQuery.Request(d, filter.since(), to, REPLAY_PAGE, pos),
                DeviceEventsQuery.ENDPOINT,
                null,
                stored));
      }
      if (filter.devices().isEmpty()) {
        for (String t : filter.types()) {
          reads.add(
              page(
                  pos -> new TypeEventsQuery.Request(t, filter.since(), REPLAY_PAGE, pos),
                  TypeEventsQuery.ENDPOINT,
                  null,
                  stored));
        }
      }
      Future.all(reads)
          .onComplete(
              ar -> {
                if (closed) {
                  return;
                }
                if (ar.failed() && ar.cause() instanceof ReplayMemory.Busy) {
                  busy();
                  return;
                }
                if (ar.failed()) {
                  releaseReplay();
                  sendText(
                      new JsonObject()
                          .put("type", "error")
                          .put("message", ar.cause().getMessage())
                          .encode());
                  closed = true;
                  ws.close(POLICY, "replay failed");
                  return;
                }
                stored.sort(
                    java.util.Comparator.comparingLong(Event::ts)
                        .thenComparing(Event::deviceId)
                        .thenComparing(Event::eventId));
                Set<String> sent = new HashSet<>();
                for (Event e : stored) {
                  if (filter.matches(e) && sent.add(identity(e))) {
                    sendEvent(e);
                  }
                }
                List<Event> pending = held;
                held = null;
                sendText(
                    new JsonObject().put("type", "live").put("replayed", sent.size()).encode());
                for (Event e : pending) {
                  if (!sent.contains(identity(e))) {
                    sendEvent(e);
                  }
                }
                // the live copy of a replayed event can arrive after the switch; it is dropped for
                // this window, while the identities stay counted in the replay memory
                replayed = sent;
                replayBytes.shrinkTo(ReplayMemory.identityBytes(sent));
                vertx.setTimer(
                    REPLAY_DEDUP_MILLIS,
                    id -> {
                      replayed = null;
                      releaseReplay();
                    });
              });
    }

    /** Reads every page of a stored query into {@code out}, up to live.max-replay-events. */
    <Q> Future<Void> page(
        Function<PagePosition, Q> request,
        Endpoint<Q, EventPage> endpoint,
        PagePosition pos,
        List<Event> out) {
      return endpoint
          .request(
              vertx,
              request.apply(pos),
              requestId,
              config.cassandra().requestTimeout().toMillis() * 3)
          .compose(
              page -> {
                long bytes = 0;
                for (Event e : page.items()) {
                  bytes += ReplayMemory.heapBytes(e);
                }
                if (!replayBytes.growTo(replayBytes.held() + bytes)) {
                  return Future.failedFuture(new ReplayMemory.Busy());
                }
                out.addAll(page.items());
                if (out.size() > config.live().maxReplayEvents()) {
                  return Future.failedFuture(
                      "replay exceeds "
                          + config.live().maxReplayEvents()
                          + " events; use a later since");
                }
                PagePosition next = page.next();
                return next == null || closed
                    ? Future.succeededFuture()
                    : page(request, endpoint, next, out);
              });
    }
  }
}
