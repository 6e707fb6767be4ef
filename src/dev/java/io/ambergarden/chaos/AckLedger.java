package io.ambergarden.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What the workload sent and what was acknowledged (HTTP 202 or the broker's ack), by event
 * identity; the checker's source of truth. Event timestamps are unique: 20 ms apart in send order
 * from {@code baseTs}, or (a {@link #live} ledger) following the clock with some late ones. Bounded
 * by {@code maxEvents}: past it {@link #next} refuses, counts the refusal ({@link #refusedFull})
 * and the run fails: a workload without new identities proves little.
 */
public final class AckLedger {
  /** The workload's event spacing in event time. */
  public static final long TS_STEP_MS = 20;

  private final List<String> devices;
  private final long baseTs;
  private final int maxEvents;
  private final Random random;
  private final AtomicInteger seq = new AtomicInteger();
  private final Map<String, ChaosEvent> events = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();
  private final Set<String> acked = ConcurrentHashMap.newKeySet();
  private final Set<String> poisonSent = ConcurrentHashMap.newKeySet();
  private final Set<String> poisonAcked = ConcurrentHashMap.newKeySet();
  private final AtomicLong duplicatesSent = new AtomicLong();
  private final Map<Long, AtomicInteger> ackedPerSecond = new ConcurrentHashMap<>();
  private final AtomicLong refusedFull = new AtomicLong();
  private final AtomicLong lastAckMillis = new AtomicLong(Long.MIN_VALUE);

  /** Live events trail the clock by this much, so a slow instance clock still takes them. */
  public static final long LIVE_LAG_MS = 2_000;

  /** Null: every event at baseTs + n * TS_STEP_MS. Else live events follow this clock. */
  private final LongSupplier clock;

  private final int lateEvery;
  private long lastLiveTs = Long.MIN_VALUE;
  private int lateSeq;

  public AckLedger(List<String> devices, long baseTs, int maxEvents, long seed) {
    this(devices, baseTs, maxEvents, seed, null, 0);
  }

  private AckLedger(
      List<String> devices,
      long baseTs,
      int maxEvents,
      long seed,
      LongSupplier clock,
      int lateEvery) {
    this.devices = List.copyOf(devices);
    this.baseTs = baseTs;
    this.maxEvents = maxEvents;
    this.random = new Random(seed);
    this.clock = clock;
    this.lateEvery = lateEvery;
  }

  /**
   * Events as devices send them: in the current hour, {@link #LIVE_LAG_MS} behind {@code clock} and
   * unique, and every {@code lateEvery}th one late, {@link #TS_STEP_MS} apart from {@code lateBase}
   * on (an hour long closed), so hours open, close and reopen during the run.
   */
  public static AckLedger live(
      List<String> devices,
      long lateBase,
      int maxEvents,
      long seed,
      LongSupplier clock,
      int lateEvery) {
    if (lateEvery < 2) {
      throw new IllegalArgumentException("lateEvery must be at least 2, got " + lateEvery);
    }
    return new AckLedger(devices, lateBase, maxEvents, seed, clock, lateEvery);
  }

  private long nextTs(int n, boolean mayBeLate) {
    if (clock == null) {
      return baseTs + n * TS_STEP_MS;
    }
    if (mayBeLate && n % lateEvery == 0) {
      return baseTs + (lateSeq++) * TS_STEP_MS;
    }
    lastLiveTs = Math.max(clock.getAsLong() - LIVE_LAG_MS, lastLiveTs + 1);
    return lastLiveTs;
  }

  /** A new event of the next device in turn, or null once {@code maxEvents} were made. */
  public ChaosEvent next() {
    return next(null);
  }

  /**
   * A new event of {@code device} (any device when null), or null past {@code maxEvents}. A named
   * device's event (a recovery probe) is never late: it must become the device's latest.
   */
  public synchronized ChaosEvent next(String device) {
    int n = seq.get();
    if (n >= maxEvents) {
      refusedFull.incrementAndGet();
      return null;
    }
    seq.incrementAndGet();
    boolean fault = random.nextInt(20) == 0;
    ChaosEvent e =
        new ChaosEvent(
            device != null ? device : devices.get(n % devices.size()),
            nextTs(n, device == null),
            "c" + n,
            fault ? "fault" : "normal",
            fault ? 500 : 200,
            Math.round(random.nextDouble() * 10_000) / 100.0);
    events.put(e.eventId(), e);
    return e;
  }

  public void sent(Collection<ChaosEvent> batch, boolean onPurposeAgain) {
    for (ChaosEvent e : batch) {
      sends.computeIfAbsent(e.eventId(), k -> new AtomicInteger()).incrementAndGet();
    }
    if (onPurposeAgain) {
      duplicatesSent.addAndGet(batch.size());
    }
  }

  public void acked(Collection<ChaosEvent> batch, long nowMillis) {
    for (ChaosEvent e : batch) {
      acked.add(e.eventId());
    }
    lastAckMillis.accumulateAndGet(nowMillis, Math::max);
    ackedPerSecond
        .computeIfAbsent(nowMillis / 1000, k -> new AtomicInteger())
        .addAndGet(batch.size());
  }

  public void poisonSent(String id) {
    poisonSent.add(id);
  }

  public void poisonAcked(String id) {
    poisonAcked.add(id);
  }

  /** A random event made earlier, to be sent again on purpose; null before the first. */
  public synchronized ChaosEvent earlier() {
    int n = seq.get();
    return n == 0 ? null : events.get("c" + random.nextInt(n));
  }

  public List<String> devices() {
    return devices;
  }

  public ChaosEvent event(String eventId) {
    return events.get(eventId);
  }

  public Collection<ChaosEvent> events() {
    return events.values();
  }

  public boolean isAcked(String eventId) {
    return acked.contains(eventId);
  }

  /** How many times the event was sent (0 when it was made but never sent). */
  public int sends(String eventId) {
    AtomicInteger n = sends.get(eventId);
    return n == null ? 0 : n.get();
  }

  public int ackedCount() {
    return acked.size();
  }

  public int sentCount() {
    return sends.size();
  }

  public long sendCount() {
    return sends.values().stream().mapToLong(AtomicInteger::get).sum();
  }

  public long duplicatesSent() {
    return duplicatesSent.get();
  }

  public Set<String> poisonSent() {
    return Set.copyOf(poisonSent);
  }

  public Set<String> poisonAcked() {
    return Set.copyOf(poisonAcked);
  }

  /** Events acknowledged in the wall-clock seconds [fromMillis, toMillis). */
  public long ackedBetween(long fromMillis, long toMillis) {
    long sum = 0;
    for (long s = fromMillis / 1000; s < (toMillis + 999) / 1000; s++) {
      AtomicInteger n = ackedPerSecond.get(s);
      sum += n == null ? 0 : n.get();
    }
    return sum;
  }

  /** New events refused because the ledger was full: the run went on without new identities. */
  public long refusedFull() {
    return refusedFull.get();
  }

  public int maxEvents() {
    return maxEvents;
  }

  /** The latest acknowledgement time (epoch millis), or Long.MIN_VALUE before the first. */
  public long lastAckMillis() {
    return lastAckMillis.get();
  }

  public long baseTs() {
    return baseTs;
  }

  /** The events of each device, in the order they were made. */
  public Map<String, List<ChaosEvent>> byDevice() {
    Map<String, List<ChaosEvent>> out = new java.util.TreeMap<>();
    for (ChaosEvent e : events.values()) {
      out.computeIfAbsent(e.deviceId(), k -> new ArrayList<>()).add(e);
    }
    out.values().forEach(l -> l.sort(java.util.Comparator.comparingLong(ChaosEvent::ts)));
    return out;
  }
}
