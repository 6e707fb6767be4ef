package io.ambergarden.ingest;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Tracks, per partition, the records read but not yet finished, and the offset that is safe to
 * commit: the lowest unfinished offset, or one past the last record read when none is unfinished. A
 * record finishing out of order never moves the commit past an unfinished one.
 *
 * <p>Only unfinished records are held: records that finished behind a stuck one are neither kept
 * nor counted, so {@link #inFlight()} is exactly what is pending and memory is bounded by it.
 * Offsets of a partition must be begun in increasing order, as a consumer reads them. Not
 * thread-safe: one event loop owns it.
 *
 * @param <P> the partition type
 */
public final class OffsetTracker<P> {

  /** A record in flight; finish it exactly once. */
  public static final class Entry {
    private final PartitionOffsets owner;
    private final long offset;
    private boolean done;

    private Entry(PartitionOffsets owner, long offset) {
      this.owner = owner;
      this.offset = offset;
    }

    public long offset() {
      return offset;
    }

    /**
     * False once finished, or once its partition was revoked: work on it should stop, and its
     * result will not be committed by this instance.
     */
    public boolean live() {
      return !done && owner.live;
    }

    public void finish() {
      if (!done) {
        done = true;
        owner.finished(this);
      }
    }
  }

  private static final class PartitionOffsets {
    private final OffsetTracker<?> tracker;
    // insertion order is offset order, so the first element is the lowest unfinished offset
    private final LinkedHashSet<Entry> pending = new LinkedHashSet<>();
    // the first offset read: the position the partition started at, nothing to commit by itself
    private long first = -1;
    private long next = -1;
    private long committed = -1;
    private boolean live = true;

    private PartitionOffsets(OffsetTracker<?> tracker) {
      this.tracker = tracker;
    }

    private void finished(Entry e) {
      if (live && pending.remove(e)) {
        tracker.inFlight--;
      }
    }

    private long committable() {
      return pending.isEmpty() ? next : pending.iterator().next().offset;
    }

    /** Whether finished records moved the safe offset past the last commit. */
    private boolean advanced() {
      long c = committable();
      return c > first && c > committed;
    }
  }

  private final Map<P, PartitionOffsets> partitions = new HashMap<>();
  private int inFlight;

  /** Starts tracking newly assigned partitions (state of a partition assigned again is reset). */
  public void assign(Collection<P> assigned) {
    assigned.forEach(p -> drop(partitions.put(p, new PartitionOffsets(this))));
  }

  /**
   * Forgets the partitions; entries still in flight for them finish into nothing.
   *
   * @return for each revoked partition that finished records since its last commit, the offset to
   *     commit before letting it go
   */
  public Map<P, Long> revoke(Collection<P> revoked) {
    Map<P, Long> out = new LinkedHashMap<>();
    for (P p : revoked) {
      PartitionOffsets po = partitions.remove(p);
      if (po != null) {
        if (po.advanced()) {
          out.put(p, po.committable());
        }
        drop(po);
      }
    }
    return out;
  }

  private void drop(PartitionOffsets po) {
    if (po != null) {
      po.live = false;
      inFlight -= po.pending.size();
      po.pending.clear();
    }
  }

  /**
   * Starts tracking a record; null when the partition is not assigned (a record that raced a
   * revoke).
   */
  public Entry begin(P partition, long offset) {
    PartitionOffsets p = partitions.get(partition);
    if (p == null) {
      return null;
    }
    Entry e = new Entry(p, offset);
    p.pending.add(e);
    if (p.first < 0) {
      p.first = offset;
    }
    p.next = Math.max(p.next, offset + 1);
    inFlight++;
    return e;
  }

  /** Records read and not yet finished, over all assigned partitions. */
  public int inFlight() {
    return inFlight;
  }

  /**
   * Offsets to commit (next offset to read) for partitions that advanced since the last {@link
   * #committed}.
   */
  public Map<P, Long> toCommit() {
    Map<P, Long> out = new LinkedHashMap<>();
    partitions.forEach(
        (k, p) -> {
          if (p.advanced()) {
            out.put(k, p.committable());
          }
        });
    return out;
  }

  /** Records a successful commit. */
  public void committed(Map<P, Long> offsets) {
    offsets.forEach(
        (k, off) -> {
          PartitionOffsets p = partitions.get(k);
          if (p != null && off > p.committed) {
            p.committed = off;
          }
        });
  }
}
