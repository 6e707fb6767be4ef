package io.ambergarden.event;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Time values as text (query parameters): epoch millis as decimal digits, or ISO-8601 with an offset
 * or Z. ISO-8601 without an offset is rejected, because its instant is ambiguous.
 */
public final class TimestampParser {
  /** Either {@code millis} or {@code error} is meaningful, as {@link #ok()} says. */
  public record Result(long millis, String error) {
    public boolean ok() {
      return error == null;
    }
  }

  private TimestampParser() {
  }

  public static Result parse(String text) {
    if (text == null || text.isEmpty()) {
      return new Result(0, "must be epoch milliseconds or ISO-8601 with an offset");
    }
    if (isDigits(text)) {
      try {
        return new Result(Long.parseLong(text), null);
      } catch (NumberFormatException e) {
        return new Result(0, "is too large");
      }
    }
    return iso(text);
  }

  /** ISO-8601 with offset only. */
  static Result iso(String text) {
    try {
      return new Result(OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli(),
          null);
    } catch (DateTimeParseException | ArithmeticException e) {
      try {
        LocalDateTime.parse(text, DateTimeFormatter.ISO_LOCAL_DATE_TIME);
        return new Result(0, "ISO-8601 time needs an offset, such as Z or +08:00");
      } catch (DateTimeParseException e2) {
        return new Result(0, "must be epoch milliseconds or ISO-8601 with an offset, such as 2026-07-15T08:00:00Z");
      }
    }
  }

  private static boolean isDigits(String s) {
    int start = s.charAt(0) == '-' ? 1 : 0;
    if (start == s.length()) {
      return false;
    }
    for (int i = start; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
