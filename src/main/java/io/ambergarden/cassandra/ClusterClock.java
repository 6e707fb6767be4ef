package io.ambergarden.cassandra;

import java.util.function.LongSupplier;

/**
 * Wall-clock time as the Cassandra cluster keeps it, for everything whose correctness depends on
 * instances agreeing on the time: the bucket a mark or a count record goes into, the buckets a scan
 * takes as complete, lease and write stamps. A service instance whose own clock is off (or jumps)
 * would otherwise write marks into buckets the other instances already passed, or pass buckets they
 * still write into, and the counts of those events would be missing until their hour is reconciled
 * (found by the nemesis with one instance 74 s ahead, then 53 s behind).
 *
 * <p>Each {@link #sync} anchors the cluster's time (the median of the nodes' clocks, so one skewed
 * node does not move it) to the monotonic clock; between syncs the time advances with the monotonic
 * clock, so a jump of this machine's wall clock changes nothing. Before the first sync, and when
 * syncs stop for longer than {@code maxAge}, it falls back to the wall clock.
 */
public final class ClusterClock {
  private static final ClusterClock SHARED =
      new ClusterClock(System::currentTimeMillis, System::nanoTime, 5 * 60_000L);

  private record Anchor(long clusterMillis, long nanos) {}

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;
  private final long maxAgeNanos;
  private volatile Anchor anchor;

  ClusterClock(LongSupplier wallMillis, LongSupplier monotonicNanos, long maxAgeMillis) {
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
    this.maxAgeNanos = maxAgeMillis * 1_000_000L;
  }

  /** The process's clock: the clock check syncs it, and the write path and the scans read it. */
  public static ClusterClock shared() {
    return SHARED;
  }

  /** Epoch millis by the cluster's time. */
  public long millis() {
    Anchor a = anchor;
    if (a != null) {
      long elapsed = monotonicNanos.getAsLong() - a.nanos();
      if (elapsed <= maxAgeNanos) {
        return a.clusterMillis() + elapsed / 1_000_000L;
      }
    }
    return wallMillis.getAsLong();
  }

  /**
   * The cluster's clock is {@code offsetMillis} ahead of this machine's wall clock (negative:
   * behind), as measured just now; from here on the time follows the monotonic clock.
   */
  public void sync(long offsetMillis) {
    long nanos = monotonicNanos.getAsLong();
    anchor = new Anchor(wallMillis.getAsLong() + offsetMillis, nanos);
  }

  /** Whether a sync is fresh enough to be used. */
  public boolean synced() {
    Anchor a = anchor;
    return a != null && monotonicNanos.getAsLong() - a.nanos() <= maxAgeNanos;
  }
}
