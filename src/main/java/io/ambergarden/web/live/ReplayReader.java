package io.ambergarden.web.live;

import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.web.AdmissionBudget;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Reads what a since= replay must send from the query verticles: every page of each filtered device
 * (or, without devices, each filtered type) from since= on, within live.max-replay-events and the
 * session's share of live.replay-max-bytes.
 */
final class ReplayReader {
  /** Events per stored page read during a replay. */
  static final int PAGE = 1000;

  private final Vertx vertx;
  private final AmberConfig config;

  ReplayReader(Vertx vertx, AmberConfig config) {
    this.vertx = vertx;
    this.config = config;
  }

  /**
   * The stored events that match {@code filter}, each once, oldest first. Fails with {@link
   * ReplayMemory.Busy} when {@code bytes} cannot grow for them; stops paging once {@code
   * cancelled}.
   */
  Future<List<Event>> read(
      LiveFilter filter,
      long now,
      String requestId,
      AdmissionBudget.Reservation bytes,
      BooleanSupplier cancelled) {
    List<Event> stored = new ArrayList<>();
    long to = now + config.events().futureSkew().toMillis() + 1;
    List<Future<Void>> reads = new ArrayList<>();
    for (String d : filter.devices()) {
      reads.add(
          pages(
              pos -> new DeviceEventsQuery.Request(d, filter.since(), to, PAGE, pos),
              DeviceEventsQuery.ENDPOINT,
              null,
              stored,
              requestId,
              bytes,
              cancelled));
    }
    if (filter.devices().isEmpty()) {
      for (String t : filter.types()) {
        reads.add(
            pages(
                pos -> new TypeEventsQuery.Request(t, filter.since(), PAGE, pos),
                TypeEventsQuery.ENDPOINT,
                null,
                stored,
                requestId,
                bytes,
                cancelled));
      }
    }
    return Future.all(reads).map(v -> matchingOnceOldestFirst(stored, filter));
  }

  static List<Event> matchingOnceOldestFirst(List<Event> stored, LiveFilter filter) {
    List<Event> sorted = new ArrayList<>(stored);
    sorted.sort(
        Comparator.comparingLong(Event::ts)
            .thenComparing(Event::deviceId)
            .thenComparing(Event::eventId));
    Set<String> seen = new HashSet<>();
    List<Event> out = new ArrayList<>();
    for (Event e : sorted) {
      if (filter.matches(e) && seen.add(LiveSession.identity(e))) {
        out.add(e);
      }
    }
    return out;
  }

  private <Q> Future<Void> pages(
      Function<PagePosition, Q> request,
      Endpoint<Q, EventPage> endpoint,
      PagePosition pos,
      List<Event> out,
      String requestId,
      AdmissionBudget.Reservation bytes,
      BooleanSupplier cancelled) {
    return endpoint
        .request(
            vertx,
            request.apply(pos),
            requestId,
            config.cassandra().requestTimeout().toMillis() * 3)
        .compose(
            page -> {
              long size = 0;
              for (Event e : page.items()) {
                size += ReplayMemory.heapBytes(e);
              }
              if (!bytes.growTo(bytes.held() + size)) {
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
              return next == null || cancelled.getAsBoolean()
                  ? Future.succeededFuture()
                  : pages(request, endpoint, next, out, requestId, bytes, cancelled);
            });
  }
}
