package io.ambergarden.ingest;

/**
 * Whether the consumer has work and makes no progress: records in flight, or lag on its partitions,
 * and no record finished for longer than {@code kafka.consumer.stall-timeout}. Lag counts as work
 * because a consumer whose partitions are paused holds nothing in flight, so an in-flight count
 * alone never sees it. A consumer with nothing to do is never stalled.
 */
final class StallCheck {
  private final long timeoutMillis;
  private long lastProgress;
  private long lag;

  StallCheck(long timeoutMillis, long nowMillis) {
    this.timeoutMillis = timeoutMillis;
    this.lastProgress = nowMillis;
  }

  /** A record finished (written or dead-lettered). */
  void progressed(long nowMillis) {
    lastProgress = nowMillis;
  }

  /** The latest lag summed over the assigned partitions; kept until the next observation. */
  void lag(long records) {
    lag = records;
  }

  /** Whether the consumer is stalled now, given the records it holds in flight. */
  boolean stalled(long nowMillis, int inFlight) {
    if (inFlight == 0 && lag == 0) {
      lastProgress = nowMillis;
    }
    return nowMillis - lastProgress > timeoutMillis;
  }
}
