package io.ambergarden.cassandra;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

/** Bucket arithmetic on epoch millis (UTC): a bucket is named by its start. */
public final class TimeBuckets {
  public static final long HOUR = 3_600_000L;

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
    return Math.floorDiv(ts, HOUR) * HOUR;
  }

  public static LocalDate utcDay(long tsMillis) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(tsMillis), ZoneOffset.UTC);
  }
}
