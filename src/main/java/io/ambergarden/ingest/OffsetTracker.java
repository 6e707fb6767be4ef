package io.ambergarden.ingest;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tracks, per partition, the records read but not yet finished, and the offset that is safe to
 * commit: one past the last record of the finished prefix. A record finishing out of order never
 * moves the commit past an unfinished one. Not thread-safe: one event loop owns it.
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

    public void finish() {
      if (!done) {
        done = true;
        owner.advance();
      }
    }
  }

  private static final class PartitionOffsets {
    private final ArrayDeque<Entry> inFlight = new ArrayDeque<>();
    private long committable = -1;
    private long committed = -1;

    private void advance() {
      while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
        committable = inFlight.pollFirst().offset + 1;
      }
    }
  }

  private final Map<P, PartitionOffsets> partitions = new HashMap<>();

  public void assign(Collection<P> assigned) {
    assigned.forEach(p -> partitions.put(p, new PartitionOffsets()));
  }

  /** Forgets the partitions; entries still in flight for them finish into nothing. */
  public void revoke(Collection<P> revoked) {
    revoked.forEach(partitions::remove);
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
    p.inFlight.addLast(e);
    return e;
  }

  public int inFlight() {
    int n = 0;
    for (PartitionOffsets p : partitions.values()) {
      n += p.inFlight.size();
    }
    return n;
  }

  /**
   * Offsets to commit (next offset to read) for partitions that advanced since the last {@link
   * #committed}.
   */
  public Map<P, Long> toCommit() {
    Map<P, Long> out = new LinkedHashMap<>();
    partitions.forEach(
        (k, p) -> {
          if (p.committable > p.committed) {
            out.put(k, p.committable);
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
