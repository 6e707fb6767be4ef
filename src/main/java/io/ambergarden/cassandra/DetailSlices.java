package io.ambergarden.cassandra;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Partition keys of events_by_device when a hot device's bucket is split into slices (salting, only
 * where needed). A slice starts on a whole second inside its bucket and spreads its events over
 * {@code salts} partitions keyed {@code bucket = start + salt} milliseconds (salts stay under 1000,
 * so keys of different slices never collide). An event belongs to the latest slice that starts at
 * or before its ts; before the first slice, or with no slice at all, it lives in the bucket's own
 * partition (key = the bucket start), as for every cold device. Readers merge every partition of a
 * bucket, so a row is found wherever it was placed.
 */
public final class DetailSlices {
  public static final long SECOND = 1000L;

  /** One slice: from {@code start} (a whole second) to the next slice or the bucket's end. */
  public record Slice(long start, int salts) {
    public Slice {
      if (salts < 1 || salts >= SECOND) {
        throw new IllegalArgumentException("salts must be in 1.." + (SECOND - 1));
      }
    }
  }

  private DetailSlices() {}

  /**
   * The salt of an event inside a slice of {@code salts}: a stable hash of its identity, so a
   * redelivered event lands in the same partition.
   */
  public static int saltOf(long ts, String eventId, int salts) {
    return salts <= 1 ? 0 : Math.floorMod(Long.hashCode(ts) * 31 + eventId.hashCode(), salts);
  }

  /** The slice an event at {@code ts} belongs to; null for the bucket's own partition. */
  public static Slice sliceOf(List<Slice> sortedSlices, long ts) {
    Slice found = null;
    for (Slice s : sortedSlices) {
      if (s.start() <= ts) {
        found = s;
      } else {
        break;
      }
    }
    return found;
  }

  /** The partition key (the {@code bucket} column) of an event. */
  public static long partitionOf(long bucket, List<Slice> sortedSlices, long ts, String eventId) {
    Slice s = sliceOf(sortedSlices, ts);
    return s == null ? bucket : s.start() + saltOf(ts, eventId, s.salts());
  }

  /** Every partition key of a bucket, ascending: its own and every salt of every slice. */
  public static List<Long> partitionsOf(long bucket, List<Slice> slices) {
    TreeSet<Long> keys = new TreeSet<>();
    keys.add(bucket);
    for (Slice s : slices) {
      for (int i = 0; i < s.salts(); i++) {
        keys.add(s.start() + i);
      }
    }
    return new ArrayList<>(keys);
  }

  /** The first whole second strictly after {@code ts}. */
  public static long nextSecond(long ts) {
    return Math.floorDiv(ts, SECOND) * SECOND + SECOND;
  }
}
