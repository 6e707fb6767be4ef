package io.ambergarden.query;

import io.ambergarden.cassandra.DetailSlices;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which rows of a sliced bucket count, when its partitions are read in ascending key order. A
 * redelivery racing a slice split can store an event twice: once where it belongs ({@link
 * DetailSlices#partitionOf}) and once, a stray, in a partition of an earlier slice (or the bucket's
 * own), written before the split was known. Strays always sit in a lower partition key than the
 * slice they belong to, so they are read first: only their identities are remembered, and a row in
 * its own partition counts unless a stray of it was counted. The memory is the strays, not the
 * bucket.
 */
final class SliceStrays {
  private final long bucket;
  private final List<DetailSlices.Slice> slices;
  private final Set<String> strays = new HashSet<>();

  /**
   * @param sortedSlices the bucket's slices by start
   */
  SliceStrays(long bucket, List<DetailSlices.Slice> sortedSlices) {
    this.bucket = bucket;
    this.slices = List.copyOf(sortedSlices);
  }

  /** True when the row of {@code partition} is counted: the first copy of its event. */
  boolean counts(long partition, long ts, String eventId) {
    if (slices.isEmpty()) {
      return true;
    }
    String key = ts + "/" + eventId;
    if (DetailSlices.partitionOf(bucket, slices, ts, eventId) != partition) {
      return strays.add(key);
    }
    return strays.isEmpty() || !strays.contains(key);
  }

  /** How many strays are remembered. */
  int strays() {
    return strays.size();
  }
}
