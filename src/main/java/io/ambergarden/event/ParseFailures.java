package io.ambergarden.event;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;

/**
 * Turns what Jackson throws while reading a document into an error, so bad input never escapes as
 * an exception: a parser limit (depth, digits, string or name length) is pinned to the event and
 * field being read, malformed JSON names its line and column.
 */
final class ParseFailures {

  private final String msgDepth;

  ParseFailures(EventLimits limits) {
    this.msgDepth = "JSON is nested deeper than " + limits.maxDepth() + " levels";
  }

  /**
   * Reports {@code e} at {@code index}; {@code lineNo} is the NDJSON line (1-based) or 0 when
   * Jackson's own line applies. Rethrows the error-cap unwind and unexpected runtime exceptions.
   */
  void report(Exception e, int index, int lineNo, ErrorCollector errors) {
    if (e instanceof ErrorCollector.CapReached) {
      throw (ErrorCollector.CapReached) e;
    }
    if (e instanceof StreamConstraintsException) {
      String m = String.valueOf(e.getMessage());
      String field =
          errors.currentField == null
              ? FieldError.DOCUMENT
              : FieldPaths.path("", errors.currentField);
      int idx = errors.eventIndex;
      String msg;
      if (m.contains("nesting depth")) {
        msg = msgDepth;
      } else if (m.contains("Number value length")) {
        msg = "number has too many digits";
      } else if (m.contains("String value length")) {
        msg = "string is too long";
      } else if (m.contains("Name length")) {
        msg = "field name is too long";
      } else {
        msg = "document exceeds parser limits";
      }
      errors.error(idx, field, msg);
      return;
    }
    if (e instanceof JsonProcessingException) {
      JsonProcessingException jpe = (JsonProcessingException) e;
      errors.error(
          index,
          FieldError.DOCUMENT,
          "malformed JSON at "
              + where(jpe.getLocation(), lineNo)
              + ": "
              + jpe.getOriginalMessage());
      return;
    }
    if (e instanceof IOException
        || e instanceof IllegalStateException
        || e instanceof IllegalArgumentException) {
      errors.error(index, FieldError.DOCUMENT, "malformed JSON: " + e.getMessage());
      return;
    }
    throw (RuntimeException) e;
  }

  /**
   * "line L, column C"; the NDJSON line number wins over Jackson's, which counts within the line.
   */
  static String where(JsonLocation loc, int lineNo) {
    if (loc == null) {
      return "unknown position";
    }
    int line = lineNo > 0 ? lineNo : loc.getLineNr();
    return "line " + line + ", column " + loc.getColumnNr();
  }
}
