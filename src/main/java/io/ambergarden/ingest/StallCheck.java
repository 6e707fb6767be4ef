package io.ambergarden.ingest;

/**
 * Whether the consumer has work and makes no progress: records in flight, or lag on its partitions,
 * and no record finished for longer than {@code kafka.consumer.stall-timeout}. Lag counts as work
 * because a consumer whose partitions are paused holds nothing in flight, so an in-flight count
 * alone never sees it. A consumer with nothing to do is never stalled.
 *
 * <p>A stall is also told apart by whether the store answered throughout it: waiting for a store
 * that is down is expected (kafka mode stays ready, F13), while a stall with the store up is a
 * stuck consumer. The store counts as up only after a whole timeout without a failed probe, so a
 * consumer catching up after an outage is not called stuck.
 */
final class StallCheck {
  private final long timeoutMillis;
  private long lastProgress;
  private long lastStoreDown = Long.MIN_VALUE / 2;
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

  /** The store's health probe fails now. */
  void storeDown(long nowMillis) {
    lastStoreDown = nowMillis;
  }

  /** Whether the consumer is stalled now, given the records it holds in flight. */
  boolean stalled(long nowMillis, int inFlight) {
    if (inFlight == 0 && lag == 0) {
      lastProgress = nowMillis;
    }
    return nowMillis - lastProgress > timeoutMillis;
  }

  /** Stalled, and the store answered for longer than the timeout: the consumer itself is stuck. */
  boolean stuck(long nowMillis, int inFlight) {
    return stalled(nowMillis, inFlight) && nowMillis - lastStoreDown > timeoutMillis;
  }
}
