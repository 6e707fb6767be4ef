package io.ambergarden.web.live;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventJson;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.web.AdmissionBudget;
import io.ambergarden.web.HttpBudgets;
import io.vertx.core.Vertx;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One live-feed client. Without since= it starts {@link State#LIVE}. With since= it goes through
 * {@link State#REPLAYING} (live events are held while the store is read, so nothing durable after
 * connect can fall in between) and {@link State#DEDUPING} (live copies of replayed events are
 * dropped for a while) to {@link State#LIVE}. Every state ends in {@link State#CLOSED}.
 */
final class LiveSession {
  static final short SLOW_CONSUMER = 1013;
  static final short POLICY = 1008;
  static final short UNSUPPORTED_DATA = 1003;
  static final short NORMAL = 1000;

  /**
   * Longer than the live topic's fan-out lag, so a replayed event's live copy is never shown twice.
   */
  static final long REPLAY_DEDUP_MILLIS = 30_000;

  enum State {
    REPLAYING,
    DEDUPING,
    LIVE,
    CLOSED
  }

  private final Vertx vertx;
  private final ServerWebSocket ws;
  private final LiveFilter filter;
  private final AmberConfig.Live config;
  private final LiveConnections connections;
  private final HttpBudgets budgets;

  /** The upgrade request's id: the replay's reads carry it. */
  private final String requestId;

  private State state = State.LIVE;

  /** REPLAYING: live events that arrived meanwhile; bounded by live.max-replay-events. */
  private List<Event> held = List.of();

  /** DEDUPING: identities replayed from the store, whose live copies may still be on their way. */
  private Set<String> replayed = Set.of();

  /** The replay's share of live.replay-max-bytes: events read and held, then the dedup set. */
  private AdmissionBudget.Reservation replayBytes;

  LiveSession(
      Vertx vertx,
      ServerWebSocket ws,
      LiveFilter filter,
      String requestId,
      AmberConfig.Live config,
      LiveConnections connections,
      HttpBudgets budgets) {
    this.vertx = vertx;
    this.ws = ws;
    this.filter = filter;
    this.requestId = requestId;
    this.config = config;
    this.connections = connections;
    this.budgets = budgets;
  }

  static String identity(Event e) {
    return e.deviceId() + '\u0000' + e.ts() + '\u0000' + e.eventId();
  }

  /** Without since=: says so and forwards live events from now on. */
  void goLive() {
    sendText(new JsonObject().put("type", "live").encode());
  }

  /** With since=: holds live events while {@code reader} reads the store, then sends both. */
  void replay(long now, ReplayReader reader) {
    state = State.REPLAYING;
    held = new ArrayList<>();
    replayBytes = budgets.replayBytes().reserve(0);
    reader
        .read(filter, now, requestId, replayBytes, () -> state == State.CLOSED)
        .onComplete(
            ar -> {
              if (state != State.REPLAYING) {
                return;
              }
              if (ar.succeeded()) {
                replayed(ar.result());
              } else if (ar.cause() instanceof ReplayMemory.Busy) {
                busy();
              } else {
                replayFailed(ar.cause());
              }
            });
  }

  void onLive(Event e) {
    if (!filter.matches(e)) {
      return;
    }
    switch (state) {
      case REPLAYING -> hold(e);
      case DEDUPING -> {
        if (!replayed.contains(identity(e))) {
          sendEvent(e);
        }
      }
      case LIVE -> sendEvent(e);
      case CLOSED -> {}
    }
  }

  void sendText(String text) {
    // the peer may have gone before our close handler ran: writeQueueFull() would throw then
    if (state == State.CLOSED || ws.isClosed()) {
      return;
    }
    if (ws.writeQueueFull()) {
      slow();
      return;
    }
    ws.writeTextMessage(text);
  }

  void close(short code, String reason) {
    if (state != State.CLOSED) {
      state = State.CLOSED;
      ws.close(code, reason);
    }
  }

  /** The socket closed: gives back what the replay still holds. */
  void closed() {
    state = State.CLOSED;
    releaseReplay();
  }

  private void hold(Event e) {
    if (held.size() >= config.maxReplayEvents()) {
      slow();
      return;
    }
    if (!replayBytes.growTo(replayBytes.held() + ReplayMemory.heapBytes(e))) {
      busy();
      return;
    }
    held.add(e);
  }

  private void replayed(List<Event> stored) {
    Set<String> sent = new HashSet<>();
    for (Event e : stored) {
      sent.add(identity(e));
      sendEvent(e);
    }
    List<Event> pending = held;
    held = List.of();
    sendText(new JsonObject().put("type", "live").put("replayed", sent.size()).encode());
    for (Event e : pending) {
      if (!sent.contains(identity(e))) {
        sendEvent(e);
      }
    }
    if (state == State.CLOSED) {
      return;
    }
    // the live copy of a replayed event can arrive after the switch; it is dropped for this
    // window, while the identities stay counted in the replay memory
    state = State.DEDUPING;
    replayed = sent;
    replayBytes.shrinkTo(ReplayMemory.identityBytes(sent));
    vertx.setTimer(
        REPLAY_DEDUP_MILLIS,
        id -> {
          if (state == State.DEDUPING) {
            state = State.LIVE;
          }
          replayed = Set.of();
          releaseReplay();
        });
  }

  private void replayFailed(Throwable err) {
    releaseReplay();
    sendText(new JsonObject().put("type", "error").put("message", err.getMessage()).encode());
    close(POLICY, "replay failed");
  }

  private void sendEvent(Event e) {
    sendText("{\"type\":\"event\",\"event\":" + EventJson.toJson(e) + "}");
  }

  private void slow() {
    if (state != State.CLOSED) {
      connections.slowConsumerClosed();
      close(SLOW_CONSUMER, "client too slow: outbound buffer full");
    }
  }

  /** Refuses the replay: the client may come back later (1013, try again later). */
  private void busy() {
    if (state != State.CLOSED) {
      budgets.shed(HttpBudgets.Shed.REPLAY_BYTES);
      sendText(
          new JsonObject()
              .put("type", "error")
              .put("message", new ReplayMemory.Busy().getMessage())
              .encode());
      held = List.of();
      releaseReplay();
      close(SLOW_CONSUMER, "replay memory at its limit; try again later");
    }
  }

  private void releaseReplay() {
    if (replayBytes != null) {
      replayBytes.release();
    }
  }
}
