package io.ambergarden.rollup;

import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where "(device, hour) needs a recompute" is filed. A mark is due when its hour has closed plus
 * the grace period, or, for a late event of an hour already closed, at the end of the late window
 * holding now; it goes into the mark bucket holding that due time. Buckets are processed only after
 * they end plus a safety margin, so a mark is never filed into a bucket that was already processed.
 *
 * <p>The late window is what keeps a backlog cheap: a device (or a consumer catching up on lag)
 * sending an hour's events late for minutes files one mark per window, not one per mark bucket, and
 * each recompute reads the whole hour again.
 */
public final class RollupMarks {
  public record Mark(int shard, long dueBucket, long hour, String deviceId) {}

  private final long graceMillis;
  private final long bucketMillis;
  private final long lateWindowMillis;
  private final int shards;

  /** A zero {@code lateWindow} makes late marks due at once, in the bucket of their arrival. */
  public RollupMarks(Duration grace, Duration bucket, Duration lateWindow, int shards) {
    this.graceMillis = grace.toMillis();
    this.bucketMillis = bucket.toMillis();
    this.lateWindowMillis = lateWindow.toMillis();
    this.shards = shards;
  }

  /** As the service's rollup settings say. */
  public static RollupMarks of(AmberConfig.Rollups cfg) {
    return new RollupMarks(cfg.grace(), cfg.markBucket(), cfg.lateWindow(), cfg.shards());
  }

  public long bucketMillis() {
    return bucketMillis;
  }

  public long bucketOf(long millis) {
    return Math.floorDiv(millis, bucketMillis) * bucketMillis;
  }

  public int shardOf(String deviceId) {
    return RowKeys.salt(deviceId, shards);
  }

  public Set<Mark> of(List<Event> events, long now) {
    Set<Mark> marks = new LinkedHashSet<>();
    for (Event e : events) {
      long hour = TimeBuckets.hourOf(e.ts());
      long onTime = hour + TimeBuckets.HOUR + graceMillis;
      long due = onTime >= now ? onTime : lateDue(now);
      marks.add(new Mark(shardOf(e.deviceId()), bucketOf(due), hour, e.deviceId()));
    }
    return marks;
  }

  /**
   * True for a mark filed in a later bucket than its hour's on-time one: a late event's, or one
   * whose write was retried past its due time. Only such marks can have reopened-hour rows.
   */
  public boolean filedLate(Mark m) {
    return m.dueBucket() > bucketOf(m.hour() + TimeBuckets.HOUR + graceMillis);
  }

  /**
   * When a late event seen at {@code now} is due: the end of the late window holding now (now
   * itself on a window's edge, or with no window), so never earlier than now.
   */
  private long lateDue(long now) {
    if (lateWindowMillis <= 0) {
      return now;
    }
    long start = Math.floorDiv(now, lateWindowMillis) * lateWindowMillis;
    return start == now ? now : start + lateWindowMillis;
  }

  /**
   * The mark as it must be written by an attempt sent at {@code attemptAt}: in its due bucket, or
   * in the bucket of {@code attemptAt} if that is later. The attempt is acknowledged within
   * cassandra.request-timeout; the bucket of {@code attemptAt} is read no earlier than its end plus
   * mark-safety, which is later than that as long as mark-safety is at least the request timeout
   * (checked at startup) plus the clock skew between instances. So however often the write is
   * retried or however long it queued, it never lands in a bucket that was already read.
   */
  public Mark stampedAt(Mark m, long attemptAt) {
    long bucket = Math.max(m.dueBucket(), bucketOf(attemptAt));
    return bucket == m.dueBucket() ? m : new Mark(m.shard(), bucket, m.hour(), m.deviceId());
  }

  /**
   * The first bucket to read after {@code doneUntil}: the bucket holding it. That is itself unless
   * done_until was written under another rollup.mark-bucket; stepping on from an unaligned value
   * would read bucket keys no mark is filed under and silently skip every mark. Reading the holding
   * bucket again is harmless: recomputes overwrite.
   */
  public long resumeFrom(long doneUntil) {
    return bucketOf(doneUntil);
  }

  /**
   * The processable buckets from {@code from} on, oldest first, at most {@code max}: the window a
   * scan probes at once for buckets that hold anything.
   */
  public List<Long> dueWindow(long from, long now, Duration safety, int max) {
    List<Long> out = new ArrayList<>();
    for (long b = from; out.size() < max && processable(b, now, safety); b += bucketMillis) {
      out.add(b);
    }
    return out;
  }

  /** True when a bucket may be processed: it ended at least {@code safety} ago. */
  public boolean processable(long dueBucket, long now, Duration safety) {
    return dueBucket + bucketMillis + safety.toMillis() <= now;
  }
}
