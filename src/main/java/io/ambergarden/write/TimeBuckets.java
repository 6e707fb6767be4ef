package io.ambergarden.write;

import java.time.Duration;

/** Bucket arithmetic on epoch millis (UTC): a bucket is named by its start. */
public final class TimeBuckets {
  private final long lengthMillis;

  public TimeBuckets(Duration length) {
    if (length.isNegative() || length.isZero()) {
      throw new IllegalArgumentException("bucket length must be positive");
    }
    this.lengthMillis = length.toMillis();
  }

  public long lengthMillis() {
    return lengthMillis;
  }

  public long bucketOf(long ts) {
    return Math.floorDiv(ts, lengthMillis) * lengthMillis;
  }

  public long previous(long bucket) {
    return bucket - lengthMillis;
  }

  public static long hourOf(long ts) {
    return Math.floorDiv(ts, 3_600_000L) * 3_600_000L;
  }
}
