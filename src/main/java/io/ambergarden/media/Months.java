package io.ambergarden.media;

import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;

/**
 * Month partitions of the image indexes: a month is written yyyymm, e.g. 202612 for December 2026
 * (UTC), so months sort in time order as plain integers.
 */
public final class Months {
  private Months() {}

  public static int of(long epochMillis) {
    YearMonth m = YearMonth.from(Instant.ofEpochMilli(epochMillis).atOffset(ZoneOffset.UTC));
    return m.getYear() * 100 + m.getMonthValue();
  }
}
