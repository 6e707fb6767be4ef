package io.ambergarden.web.read;

import io.ambergarden.event.Event;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Events as CSV rows (RFC 4180) that open cleanly in a spreadsheet: the header {@code
 * ts,eventId,deviceType,status,code} and one column per requested metric, in the order asked; rows
 * end with CRLF; {@code ts} is ISO-8601 UTC with milliseconds; a missing value is an empty cell.
 *
 * <p>A cell holding a comma, a double quote, CR or LF is quoted, its quotes doubled. A text cell
 * (event id, device type, status, and the metric names of the header) that starts with {@code =},
 * {@code +}, {@code -}, {@code @}, a tab or a CR is prefixed with {@code '} (OWASP's CSV injection
 * guard), so a spreadsheet shows it as text instead of running it as a formula. Numbers are not
 * guarded: a negative metric stays a number.
 */
public final class CsvRows {
  static final String NEWLINE = "\r\n";
  static final List<String> FIXED = List.of("ts", "eventId", "deviceType", "status", "code");

  private static final DateTimeFormatter TS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** Whole numbers below this are written without a fraction (36, not 36.0). */
  private static final double PLAIN_WHOLE = 1e15;

  private CsvRows() {}

  /** The header row, with its line end. */
  public static String header(List<String> metrics) {
    StringBuilder out = new StringBuilder(64 + 16 * metrics.size());
    out.append(String.join(",", FIXED));
    for (String m : metrics) {
      out.append(',');
      appendText(out, m);
    }
    return out.append(NEWLINE).toString();
  }

  /** Appends one event's row, with its line end. */
  public static void append(StringBuilder out, Event e, List<String> metrics) {
    TS.formatTo(java.time.Instant.ofEpochMilli(e.ts()), out);
    out.append(',');
    appendText(out, e.eventId());
    out.append(',');
    appendText(out, e.deviceType());
    out.append(',');
    appendText(out, e.status());
    out.append(',');
    if (e.code() != null) {
      out.append(e.code().intValue());
    }
    for (String m : metrics) {
      out.append(',');
      Double v = e.metrics().get(m);
      if (v != null) {
        appendNumber(out, v);
      }
    }
    out.append(NEWLINE);
  }

  /** One text cell: empty for null, guarded against formulas, quoted when it must be. */
  public static String text(String s) {
    StringBuilder out = new StringBuilder();
    appendText(out, s);
    return out.toString();
  }

  static void appendText(StringBuilder out, String s) {
    if (s == null || s.isEmpty()) {
      return;
    }
    boolean guard = startsLikeAFormula(s);
    if (!needsQuotes(s)) {
      out.append(guard ? "'" : "").append(s);
      return;
    }
    out.append('"');
    if (guard) {
      out.append('\'');
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        out.append('"');
      }
      out.append(c);
    }
    out.append('"');
  }

  static boolean startsLikeAFormula(String s) {
    char c = s.charAt(0);
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
  }

  private static boolean needsQuotes(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ',' || c == '"' || c == '\r' || c == '\n') {
        return true;
      }
    }
    return false;
  }

  /** A finite metric value: whole numbers without a fraction, others as Java prints doubles. */
  static void appendNumber(StringBuilder out, double v) {
    if (v == Math.rint(v) && Math.abs(v) < PLAIN_WHOLE) {
      out.append((long) v);
    } else {
      out.append(v);
    }
  }
}
