package io.ambergarden.media;

import java.time.Duration;

/**
 * The sweeper's time arithmetic. Purge marks ("this blob may go at time T") are filed under the
 * bucket of T, like rollup marks, so each bucket is read once after it is due and never again.
 * Orphan checks walk each key shard's listing in upload order, a window at a time, up to the orphan
 * grace before now.
 */
public final class SweepPlan {
  /**
   * Marks outlive their due time by this much, so a sweeper that was down a while still finds them.
   */
  static final Duration MARK_SLACK = Duration.ofDays(30);

  private final long bucketMillis;
  private final long safetyMillis;

  /**
   * @param bucket width of a purge-mark bucket
   * @param safety a bucket is read only this long after it ends, covering slow mark writes
   */
  public SweepPlan(Duration bucket, Duration safety) {
    this.bucketMillis = bucket.toMillis();
    this.safetyMillis = safety.toMillis();
  }

  public long bucketMillis() {
    return bucketMillis;
  }

  public long bucketOf(long millis) {
    return Math.floorDiv(millis, bucketMillis) * bucketMillis;
  }

  /** The bucket a purge mark due at {@code dueAt} is filed under. */
  public long purgeBucket(long dueAt) {
    return bucketOf(dueAt);
  }

  /** TTL of a purge mark due at {@code dueAt}, written at {@code now}. */
  public int markTtlSeconds(long dueAt, long now) {
    long seconds = Math.max(0, dueAt - now) / 1000 + MARK_SLACK.toSeconds();
    return (int) Math.min(Integer.MAX_VALUE, seconds);
  }

  /** The latest purge bucket that may be read at {@code now}. */
  public long lastDueBucket(long now) {
    return bucketOf(now - safetyMillis - bucketMillis);
  }

  /** Whether the purge bucket starting at {@code bucket} may be read at {@code now}. */
  public boolean purgeBucketDue(long bucket, long now) {
    return bucket + bucketMillis + safetyMillis <= now;
  }

  /** The end (exclusive) of the upload times whose orphans may be judged at {@code now}. */
  public static long orphanHorizon(long now, Duration grace) {
    return now - grace.toMillis();
  }

  /** Whether a blob of a deleted image may be purged at {@code now}. */
  public static boolean purgeable(long deletedAt, Duration purgeAfter, long now) {
    return deletedAt + purgeAfter.toMillis() <= now;
  }
}
