package io.ambergarden.write;

import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.DetailSlices.Slice;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a device's events go within a bucket, and when a hot device needs salted slices: counts the
 * rows this writer placed per (device, bucket) and per slice, proposes a slice for a new bucket of
 * a device that was hot in the previous one, and a split, from the next whole second after the
 * newest event, once a slice's partitions reach half the row target. Rates are taken over at least
 * a sixth of a bucket, so a burst (a backlog sent after a reconnect) does not salt a whole bucket
 * as if it were the device's steady rate: a device that stays hot is split again, each split at
 * least doubling the salts. Plain logic, no I/O: the writer creates the slices (lightweight
 * transactions) and reports them back. Bounded LRU.
 */
final class HotBuckets {
  record Key(String deviceId, long bucket) {}

  /** What the writer knows of one (device, bucket). Touched only on the writer's event loop. */
  static final class State {
    final long bucket;
    private final List<Slice> slices = new ArrayList<>();
    private final Map<Long, Long> rowsBySlice = new LinkedHashMap<>();
    boolean indexed;
    boolean splitPending;
    long rows;
    long minTs = Long.MAX_VALUE;
    long maxTs = Long.MIN_VALUE;

    State(long bucket, List<Slice> slices) {
      this.bucket = bucket;
      slices.forEach(this::addSlice);
    }

    List<Slice> slices() {
      return List.copyOf(slices);
    }

    /** Adds a slice (once), keeping start order. */
    void addSlice(Slice s) {
      for (Slice known : slices) {
        if (known.start() == s.start()) {
          return;
        }
      }
      slices.add(s);
      slices.sort((a, b) -> Long.compare(a.start(), b.start()));
    }

    long rowsIn(Slice s) {
      return rowsBySlice.getOrDefault(s == null ? bucket : s.start(), 0L);
    }
  }

  private final long bucketMillis;
  private final long minRateSpan;
  private final long halfTarget;
  private final int maxSalts;
  private final Map<Key, State> states;

  HotBuckets(long bucketMillis, int partitionRows, int maxSalts, int cacheSize) {
    this.bucketMillis = bucketMillis;
    this.minRateSpan = Math.max(DetailSlices.SECOND, bucketMillis / 6);
    this.halfTarget = Math.max(1, partitionRows / 2);
    this.maxSalts = maxSalts;
    this.states =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, State> eldest) {
            return size() > Math.max(1, cacheSize);
          }
        };
  }

  State get(Key k) {
    return states.get(k);
  }

  void put(Key k, State s) {
    states.put(k, s);
  }

  /**
   * A slice covering all of a new bucket when the device's previous bucket (as this writer saw it)
   * ran at a rate that would pass half the target here; null for a cold start.
   */
  Slice initialSlice(Key k) {
    State prev = states.get(new Key(k.deviceId(), k.bucket() - bucketMillis));
    if (prev == null || prev.rows < 2) {
      return null;
    }
    double expected = Math.max(prev.rows, prev.rows * (double) bucketMillis / rateSpan(prev));
    int salts = saltsFor(expected);
    return salts > 1 ? new Slice(k.bucket(), salts) : null;
  }

  /** Places one event: its partition key, counted against its slice. */
  long place(State s, Event e) {
    List<Slice> slices = s.slices;
    Slice slice = DetailSlices.sliceOf(slices, e.ts());
    s.rowsBySlice.merge(slice == null ? s.bucket : slice.start(), 1L, Long::sum);
    s.rows++;
    s.minTs = Math.min(s.minTs, e.ts());
    s.maxTs = Math.max(s.maxTs, e.ts());
    return slice == null
        ? s.bucket
        : slice.start() + DetailSlices.saltOf(e.ts(), e.eventId(), slice.salts());
  }

  /** The salt an event got in {@link #place} (0 outside a slice). */
  static int saltOf(State s, Event e) {
    Slice slice = DetailSlices.sliceOf(s.slices, e.ts());
    return slice == null ? 0 : DetailSlices.saltOf(e.ts(), e.eventId(), slice.salts());
  }

  /**
   * A split to create now, or null: when the slice holding the newest event has, per partition,
   * half the row target, a new slice from the next whole second after the newest event, salted for
   * the rest of the bucket at the rate seen so far. Nothing already placed moves.
   */
  Slice splitFor(State s) {
    if (s.splitPending || s.rows == 0) {
      return null;
    }
    Slice current = DetailSlices.sliceOf(s.slices, s.maxTs);
    int salts = current == null ? 1 : current.salts();
    if (s.rowsIn(current) < halfTarget * salts) {
      return null;
    }
    long start = DetailSlices.nextSecond(s.maxTs);
    long end = s.bucket + bucketMillis;
    if (start >= end) {
      return null;
    }
    double expected = s.rows * (double) (end - start) / rateSpan(s);
    return new Slice(start, Math.max(Math.min(maxSalts, salts * 2), saltsFor(expected)));
  }

  /** The event time a state's rows are spread over, for a rate: at least {@link #minRateSpan}. */
  private long rateSpan(State s) {
    return Math.max(minRateSpan, s.maxTs - s.minTs);
  }

  /**
   * Salts (a power of two, 1..maxSalts) that keep {@code rows} at half the target per partition.
   */
  int saltsFor(double rows) {
    int salts = 1;
    while (salts < maxSalts && rows / salts > halfTarget) {
      salts *= 2;
    }
    return Math.min(salts, maxSalts);
  }
}
