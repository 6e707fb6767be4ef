package io.ambergarden.web.read;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A series step as the API takes it: a whole number of seconds, minutes, hours or days ({@code
 * 30s}, {@code 5m}, {@code 1h}, {@code 1d}) or an ISO-8601 duration ({@code PT5M}, {@code P1D}).
 * Under an hour it must divide an hour evenly, so buckets aligned on the epoch never straddle an
 * hour; from an hour up it must be a whole number of hours, so it is built from hourly rollups.
 *
 * @param millis the step's length
 */
public record SeriesStep(long millis) {
  static final long SECOND = 1_000L;
  static final long MINUTE = 60 * SECOND;
  static final long HOUR = 60 * MINUTE;
  static final long DAY = 24 * HOUR;

  /** The longest step: a year of days, far past any retention. */
  static final long MAX_MILLIS = 366 * DAY;

  private static final Pattern SHORT = Pattern.compile("([1-9][0-9]{0,8})([smhd])");

  public SeriesStep {
    if (!valid(millis)) {
      throw new IllegalArgumentException("not a series step: " + millis + " ms");
    }
  }

  /** The step {@code text} names, or an {@link IllegalArgumentException} saying what is wrong. */
  public static SeriesStep parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException("is required (30s, 5m, 1h, 1d or ISO-8601 like PT5M)");
    }
    long millis;
    Matcher m = SHORT.matcher(text);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      millis =
          n
              * switch (m.group(2)) {
                case "s" -> SECOND;
                case "m" -> MINUTE;
                case "h" -> HOUR;
                default -> DAY;
              };
    } else if (text.length() <= 32 && (text.charAt(0) == 'P' || text.charAt(0) == 'p')) {
      Duration d;
      try {
        d = Duration.parse(text);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "is not a step: use 30s, 5m, 1h, 1d or an ISO-8601 duration like PT5M");
      }
      if (d.isNegative()
          || d.isZero()
          || d.getNano() % 1_000_000 != 0
          || d.getSeconds() > 1L << 40) {
        throw new IllegalArgumentException("must be a positive whole number of seconds");
      }
      millis = d.toMillis();
    } else {
      throw new IllegalArgumentException(
          "is not a step: use 30s, 5m, 1h, 1d or an ISO-8601 duration like PT5M");
    }
    if (millis % SECOND != 0) {
      throw new IllegalArgumentException("must be a whole number of seconds");
    }
    if (millis > MAX_MILLIS) {
      throw new IllegalArgumentException("must be at most 366 days");
    }
    if (millis < HOUR && HOUR % millis != 0) {
      throw new IllegalArgumentException(
          "under an hour must divide an hour evenly (for example 30s, 1m, 5m, 15m)");
    }
    if (millis >= HOUR && millis % HOUR != 0) {
      throw new IllegalArgumentException("from an hour up must be a whole number of hours or days");
    }
    return new SeriesStep(millis);
  }

  static boolean valid(long millis) {
    if (millis <= 0 || millis % SECOND != 0 || millis > MAX_MILLIS) {
      return false;
    }
    return millis < HOUR ? HOUR % millis == 0 : millis % HOUR == 0;
  }

  /** True when the step is built from hourly rollups. */
  public boolean hourly() {
    return millis >= HOUR;
  }

  /** The start of the bucket holding {@code ts}: a multiple of the step since the epoch, UTC. */
  public long bucketOf(long ts) {
    return Math.floorDiv(ts, millis) * millis;
  }

  /** How many buckets [from, to) touches (from &lt; to). */
  public long bucketsIn(long from, long to) {
    return (bucketOf(to - 1) - bucketOf(from)) / millis + 1;
  }

  /** The shortest text naming the step: whole days, hours, minutes or seconds ({@code 5m}). */
  public String text() {
    if (millis % DAY == 0) {
      return millis / DAY + "d";
    }
    if (millis % HOUR == 0) {
      return millis / HOUR + "h";
    }
    if (millis % MINUTE == 0) {
      return millis / MINUTE + "m";
    }
    return millis / SECOND + "s";
  }
}
