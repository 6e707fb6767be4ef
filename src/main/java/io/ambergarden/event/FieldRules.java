package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_CODE_RANGE;
import static io.ambergarden.event.EventParser.MSG_INTEGER;
import static io.ambergarden.event.EventParser.MSG_REQUIRED;
import static io.ambergarden.event.EventParser.MSG_STRING;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The rules of the short scalar fields: deviceId, eventId and deviceType (the id charset), status
 * and code. Each read takes the current token, reports problems to the run and returns the value,
 * or null when it is absent or invalid. Also holds the id check shared by metric and tag names.
 */
final class FieldRules {

  private static final String ID_CHARSET = "letters, digits and . _ : -";
  private static final boolean[] ID_CHARS = new boolean[128];
  private static final int CODE_MAX = 999_999;

  static {
    for (char c = 'A'; c <= 'Z'; c++) {
      ID_CHARS[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      ID_CHARS[c] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      ID_CHARS[c] = true;
    }
    ID_CHARS['.'] = true;
    ID_CHARS['_'] = true;
    ID_CHARS[':'] = true;
    ID_CHARS['-'] = true;
  }

  private final EventLimits limits;

  FieldRules(EventLimits limits) {
    this.limits = limits;
  }

  /** An id-like string field; a null value is an error only when {@code required}. */
  String readId(
      JsonParser p, JsonToken t, int idx, String field, int maxLen, boolean required, ParseRun run)
      throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      if (required) {
        run.error(idx, field, MSG_REQUIRED);
      }
      return null;
    }
    if (t != JsonToken.VALUE_STRING) {
      run.error(idx, field, MSG_STRING);
      p.skipChildren();
      return null;
    }
    String s = p.getText();
    String problem = checkId(s, maxLen, "must be ");
    if (problem != null) {
      run.error(idx, field, problem);
      return null;
    }
    return s;
  }

  /**
   * Null when {@code s} is 1..maxLen chars of [A-Za-z0-9._:-] and not "." or "..", else a message
   * starting with {@code lead} ("must be " for values, "names must be " for names).
   */
  static String checkId(String s, int maxLen, String lead) {
    int n = s.length();
    if (n == 0 || n > maxLen) {
      return lead + "1-" + maxLen + " characters of " + ID_CHARSET + " (got " + n + ")";
    }
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 128 || !ID_CHARS[c]) {
        return lead
            + "1-"
            + maxLen
            + " characters of "
            + ID_CHARSET
            + " (invalid character "
            + describe(s, i)
            + " at position "
            + i
            + ")";
      }
    }
    if (n <= 2 && s.charAt(0) == '.' && (n == 1 || s.charAt(1) == '.')) {
      return "must not be '.' or '..'";
    }
    return null;
  }

  /** The character at {@code i} for a message: quoted when printable ASCII, else U+XXXX. */
  static String describe(String s, int i) {
    char c = s.charAt(i);
    if (c > 0x20 && c < 0x7F) {
      return "'" + c + "'";
    }
    int cp = Character.codePointAt(s, i);
    return String.format("U+%04X", cp);
  }

  String readStatus(JsonParser p, JsonToken t, int idx, ParseRun run) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_STRING) {
      run.error(idx, "status", MSG_STRING);
      p.skipChildren();
      return null;
    }
    String s = p.getText();
    String problem = checkStatus(s, limits.maxStatusLength());
    if (problem != null) {
      run.error(idx, "status", problem);
      return null;
    }
    return s;
  }

  /** Null when {@code s} is 1..maxLen printable ASCII characters, else the message. */
  static String checkStatus(String s, int maxLen) {
    int n = s.length();
    if (n == 0 || n > maxLen) {
      return "must be 1-" + maxLen + " characters (got " + n + ")";
    }
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        return "must be printable ASCII without control characters (invalid character "
            + describe(s, i)
            + " at position "
            + i
            + ")";
      }
    }
    return null;
  }

  Integer readCode(JsonParser p, JsonToken t, int idx, ParseRun run) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_NUMBER_INT) {
      run.error(idx, "code", MSG_INTEGER);
      p.skipChildren();
      return null;
    }
    if (p.getNumberType() == JsonParser.NumberType.INT) {
      int v = p.getIntValue();
      if (v >= 0 && v <= CODE_MAX) {
        return v;
      }
    }
    run.error(idx, "code", MSG_CODE_RANGE);
    return null;
  }
}
