package io.ambergarden.event;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.OptionalLong;

/**
 * Parses timestamps given as text, for event {@code ts} strings and for query parameters such as
 * {@code from}, {@code to} and {@code since}.
 *
 * <p>Accepted forms:
 *
 * <ul>
 *   <li>epoch milliseconds as a decimal integer string, optionally negative: {@code 1752537600000}
 *       (only by {@link #parse(String)}, not by {@link #parseIso(String)});
 *   <li>ISO-8601 date-time WITH an offset or {@code Z}, fractional seconds allowed (truncated to
 *       milliseconds): {@code 2026-07-15T00:00:00Z}, {@code 2026-07-15T08:00:00.123+08:00}.
 * </ul>
 *
 * ISO-8601 without an offset ({@code 2026-07-15T00:00:00}) is rejected with a message saying an
 * offset is required. No range check is applied here; callers check windows themselves.
 *
 * <p>Error messages do not name the field or echo the input, so callers can prefix them.
 * Thread-safe and allocation-light on the happy path.
 */
public final class TimestampParser {

  /** Message for ISO-8601 text that lacks an offset. */
  public static final String MSG_OFFSET_REQUIRED =
      "ISO-8601 timestamp needs a UTC offset or 'Z', e.g. 2026-07-15T08:00:00+08:00";

  /** Message for an ISO-8601 date without time. */
  public static final String MSG_TIME_REQUIRED =
      "ISO-8601 timestamp needs a time and a UTC offset, e.g. 2026-07-15T00:00:00Z";

  /** Message for text that is neither epoch millis nor ISO-8601. */
  public static final String MSG_INVALID =
      "must be epoch milliseconds or an ISO-8601 timestamp with offset, e.g. 2026-07-15T00:00:00Z";

  /** Message for text that is not ISO-8601 (when epoch millis text is not accepted). */
  public static final String MSG_INVALID_ISO =
      "must be an ISO-8601 timestamp with offset, e.g. 2026-07-15T00:00:00Z";

  /** Message for epoch millis text that does not fit a 64-bit integer. */
  public static final String MSG_OUT_OF_RANGE = "is out of range for epoch milliseconds";

  /** Message for a null or empty text. */
  public static final String MSG_EMPTY = "must not be empty";

  private static final int MAX_TEXT = 64;

  private TimestampParser() {}

  /**
   * The outcome of a parse: either {@code millis} (when {@link #ok()}) or an {@code error} message.
   */
  public record Result(long millis, String error) {
    public boolean ok() {
      return error == null;
    }

    static Result of(long millis) {
      return new Result(millis, null);
    }

    static Result fail(String error) {
      return new Result(0L, error);
    }
  }

  /** Epoch millis as a decimal string, or ISO-8601 with offset. */
  public static Result parse(String text) {
    if (text == null || text.isEmpty()) {
      return Result.fail(MSG_EMPTY);
    }
    if (isDecimalInteger(text)) {
      try {
        return Result.of(Long.parseLong(text));
      } catch (NumberFormatException e) {
        return Result.fail(MSG_OUT_OF_RANGE);
      }
    }
    return iso(text, MSG_INVALID);
  }

  /** Same as {@link #parse(String)}, as an OptionalLong (empty when invalid). */
  public static OptionalLong parseOrEmpty(String text) {
    Result r = parse(text);
    return r.ok() ? OptionalLong.of(r.millis()) : OptionalLong.empty();
  }

  /** ISO-8601 with an offset only; a decimal string is rejected. */
  public static Result parseIso(String text) {
    if (text == null || text.isEmpty()) {
      return Result.fail(MSG_EMPTY);
    }
    return iso(text, MSG_INVALID_ISO);
  }

  /** True for an optional '-' followed by 1 or more ASCII digits. */
  public static boolean isDecimalInteger(String s) {
    int n = s.length();
    int i = 0;
    if (n > 0 && s.charAt(0) == '-') {
      i = 1;
    }
    if (i >= n) {
      return false;
    }
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static Result iso(String text, String invalidMessage) {
    // a date-time needs at least yyyy-mm-ddThh:mm; cheap pre-checks avoid exceptions on junk
    if (text.length() > MAX_TEXT || text.length() < 10) {
      return Result.fail(invalidMessage);
    }
    try {
      OffsetDateTime odt = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
      return Result.of(odt.toInstant().toEpochMilli());
    } catch (ArithmeticException e) {
      return Result.fail(MSG_OUT_OF_RANGE);
    } catch (DateTimeException e) {
      String noOffset = withoutOffsetMessage(text);
      return Result.fail(noOffset != null ? noOffset : invalidMessage);
    }
  }

  private static String withoutOffsetMessage(String text) {
    try {
      LocalDateTime.parse(text, DateTimeFormatter.ISO_LOCAL_DATE_TIME);
      return MSG_OFFSET_REQUIRED;
    } catch (DateTimeException e) {
      // fall through
    }
    try {
      LocalDate.parse(text, DateTimeFormatter.ISO_LOCAL_DATE);
      return MSG_TIME_REQUIRED;
    } catch (DateTimeException e) {
      return null;
    }
  }
}
