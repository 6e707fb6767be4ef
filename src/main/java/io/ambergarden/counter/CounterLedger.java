package io.ambergarden.counter;

import io.ambergarden.event.Event;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Remembers which events' increments were applied, so an event counts once even when its batch is
 * asked for again: after an event-bus timeout while its flush was still pending, after a partial
 * flush failure, or on a redelivery within the window. Not thread-safe: owned by the counter
 * verticle.
 *
 * <p>An event, by identity (deviceId, ts, eventId), is either unknown, open (some of its cells are
 * pending in the coalescer or in a flush, or were applied while others failed) or applied (every
 * cell written; then only its 64-bit fingerprint is kept, in a window of the last {@code window}
 * applied events). A request waits for its open events and is answered when all their cells are
 * applied; it fails as soon as a cell it waits for fails. A retry then sends only the cells not yet
 * applied. Each cell of each event is tracked on its own ({@link Slot}), so a failed statement
 * never takes down increments that another statement of the same flush applied.
 *
 * @param <R> the request handle (an event-bus message in the verticle)
 */
public final class CounterLedger<R> {
  /** What became of a request. */
  public enum Admission {
    /** Every event was already counted: answer at once. */
    DONE,
    /** Waiting for pending cells; answered through {@link #settle}. */
    WAITING,
    /** No room (pending cells or open events at their limits): nothing was taken. */
    REFUSED
  }

  /** One event's share of a pending update: cell {@code index} of {@code entry}. */
  public static final class Slot {
    private final Entry entry;
    private final int index;

    private Slot(Entry entry, int index) {
      this.entry = entry;
      this.index = index;
    }
  }

  /** A drained update and the event cells it carries. */
  public record Tracked(CounterCoalescer.Update update, List<Slot> slots) {}

  /** Requests answered by a {@link #settle}. */
  public record Outcome<R>(List<R> succeeded, List<R> failed) {}

  private static final class Entry {
    final long key;
    final List<CounterCell> cells;
    int applied;
    int pending;
    List<Waiter<?>> waiters;

    Entry(long key, List<CounterCell> cells) {
      this.key = key;
      this.cells = cells;
    }

    int all() {
      return (1 << cells.size()) - 1;
    }
  }

  private static final class Waiter<R> {
    final R request;
    int open;
    boolean answered;

    Waiter(R request) {
      this.request = request;
    }
  }

  private final CounterCoalescer coalescer;
  private final FingerprintWindow applied;
  private final Map<Long, Entry> open = new HashMap<>();

  /** Open entries with nothing pending and nobody waiting, oldest first: the ones to forget. */
  private final LinkedHashSet<Long> idle = new LinkedHashSet<>();

  private final int maxOpen;
  private final Map<CounterCell, ArrayDeque<Slot>> unflushed = new HashMap<>();
  private final MessageDigest sha256;
  private long duplicates;

  public CounterLedger(CounterCoalescer coalescer, int window, int maxOpen) {
    this.coalescer = coalescer;
    this.applied = new FingerprintWindow(window);
    this.maxOpen = maxOpen;
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /**
   * Takes a request's events: cells not yet applied nor pending go into the coalescer. All or
   * nothing: when there is no room, or {@code cellsOf} throws, nothing changes.
   */
  public Admission admit(
      R request, List<Event> events, Function<Event, List<CounterCell>> cellsOf) {
    // plan first, without changing anything
    Map<Long, Entry> fresh = new LinkedHashMap<>();
    Set<Long> seen = new HashSet<>();
    List<Entry> waitOn = new ArrayList<>();
    List<CounterCell> toAdd = new ArrayList<>();
    List<Slot> slots = new ArrayList<>();
    long skipped = 0;
    for (Event e : events) {
      long key = fingerprint(e);
      if (!seen.add(key) || applied.contains(key)) {
        skipped++;
        continue;
      }
      Entry entry = open.get(key);
      if (entry == null) {
        List<CounterCell> cells = List.copyOf(cellsOf.apply(e));
        if (cells.isEmpty() || cells.size() > 30) {
          throw new IllegalArgumentException("an event has 1..30 counter cells, got " + cells);
        }
        entry = new Entry(key, cells);
        fresh.put(key, entry);
      } else {
        skipped++;
      }
      waitOn.add(entry);
      for (int i = 0; i < entry.cells.size(); i++) {
        int bit = 1 << i;
        if ((entry.applied & bit) == 0 && (entry.pending & bit) == 0) {
          toAdd.add(entry.cells.get(i));
          slots.add(new Slot(entry, i));
        }
      }
    }
    if (waitOn.isEmpty()) {
      duplicates += skipped;
      return Admission.DONE;
    }
    int reused = 0;
    for (Entry entry : waitOn) {
      reused += idle.contains(entry.key) ? 1 : 0;
    }
    int evictable = idle.size() - reused;
    if (open.size() + fresh.size() - evictable > maxOpen || !coalescer.add(toAdd)) {
      return Admission.REFUSED;
    }
    // commit: entries this request waits on are busy again, so they cannot be the ones forgotten
    duplicates += skipped;
    for (Entry entry : waitOn) {
      idle.remove(entry.key);
    }
    while (open.size() + fresh.size() > maxOpen) {
      forgetOldestIdle();
    }
    open.putAll(fresh);
    for (int i = 0; i < toAdd.size(); i++) {
      Slot s = slots.get(i);
      s.entry.pending |= 1 << s.index;
      unflushed.computeIfAbsent(toAdd.get(i), c -> new ArrayDeque<>()).add(s);
    }
    Waiter<R> w = new Waiter<>(request);
    for (Entry entry : waitOn) {
      w.open++;
      if (entry.waiters == null) {
        entry.waiters = new ArrayList<>(1);
      }
      entry.waiters.add(w);
    }
    return Admission.WAITING;
  }

  /**
   * Takes every pending update for a flush, grouped by partition, each with the event cells it
   * carries (an update of delta n carries n of them).
   */
  public Map<Object, List<Tracked>> drain() {
    Map<Object, List<Tracked>> out = new LinkedHashMap<>();
    coalescer
        .drain()
        .forEach(
            (partition, updates) -> {
              List<Tracked> tracked = new ArrayList<>(updates.size());
              for (CounterCoalescer.Update u : updates) {
                ArrayDeque<Slot> queue = unflushed.get(u.cell());
                List<Slot> carried = new ArrayList<>((int) u.delta());
                for (long i = 0; i < u.delta(); i++) {
                  carried.add(queue.poll());
                }
                if (queue.isEmpty()) {
                  unflushed.remove(u.cell());
                }
                tracked.add(new Tracked(u, carried));
              }
              out.put(partition, tracked);
            });
    return out;
  }

  /**
   * Records the outcome of one statement. Applied cells are never sent again for the same event in
   * the window; cells of a failed statement (an unknown outcome included) become sendable again,
   * and every request waiting for them fails, so its source retries.
   */
  public Outcome<R> settle(List<Tracked> statement, boolean written) {
    List<R> succeeded = new ArrayList<>();
    List<R> failed = new ArrayList<>();
    Set<Entry> touched = new LinkedHashSet<>();
    for (Tracked t : statement) {
      for (Slot s : t.slots()) {
        int bit = 1 << s.index;
        s.entry.pending &= ~bit;
        if (written) {
          s.entry.applied |= bit;
        }
        touched.add(s.entry);
      }
    }
    for (Entry e : touched) {
      if (e.applied == e.all()) {
        open.remove(e.key);
        idle.remove(e.key);
        applied.add(e.key);
        answer(e, w -> --w.open == 0, succeeded);
      } else if (!written) {
        answer(e, w -> true, failed);
      }
      if (open.containsKey(e.key) && e.pending == 0 && e.waiters == null) {
        idle.add(e.key);
      }
    }
    return new Outcome<>(succeeded, failed);
  }

  @SuppressWarnings("unchecked") // every waiter of this ledger holds an R
  private void answer(Entry e, Predicate<Waiter<?>> finished, List<R> out) {
    if (e.waiters == null) {
      return;
    }
    for (Waiter<?> w : e.waiters) {
      if (!w.answered && finished.test(w)) {
        w.answered = true;
        out.add((R) w.request);
      }
    }
    e.waiters = null;
  }

  private void forgetOldestIdle() {
    Iterator<Long> it = idle.iterator();
    Long key = it.next();
    it.remove();
    open.remove(key);
  }

  /** Events whose increments were not taken again because they were applied or pending. */
  public long duplicates() {
    return duplicates;
  }

  /** Events with pending or partly applied increments. */
  public int openEvents() {
    return open.size();
  }

  /** Applied events remembered. */
  public int remembered() {
    return applied.size();
  }

  /**
   * 64 bits of SHA-256 over the identity: a collision between two events in the window (about
   * window / 2^64 per event) would make one of them uncounted.
   */
  long fingerprint(Event e) {
    sha256.update(e.deviceId().getBytes(StandardCharsets.UTF_8));
    sha256.update((byte) 0);
    sha256.update(ByteBuffer.allocate(8).putLong(e.ts()).array());
    sha256.update((byte) 0);
    sha256.update(e.eventId().getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(sha256.digest()).getLong();
  }
}
