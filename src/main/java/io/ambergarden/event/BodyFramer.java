package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_EMPTY_BATCH;
import static io.ambergarden.event.EventParser.MSG_EMPTY_BODY;
import static io.ambergarden.event.EventParser.MSG_NOT_OBJECT;
import static io.ambergarden.event.EventParser.MSG_TOP_LEVEL;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.IOException;

/**
 * Finds the event objects of a body and hands each to the {@link EventReader} with its index: one
 * object, a JSON array of objects, NDJSON lines, or a Kafka record value. It checks the encoding
 * first (BOM skipped, strict UTF-8, no NUL), the batch cap, empty bodies and trailing content.
 * Streams each document with one Jackson parser; never materialises a tree. Immutable.
 */
final class BodyFramer {

  /** Nesting limit = maxDepth: a single object, an NDJSON line or a Kafka value. */
  private final JsonFactory objectFactory;

  /** Nesting limit = maxDepth + 1: the wrapping batch array does not count. */
  private final JsonFactory arrayFactory;

  private final int maxBatch;
  private final String msgBatchTooLarge;
  private final EventReader reader;
  private final ParseFailures failures;

  BodyFramer(EventLimits limits) {
    this.objectFactory = factory(limits.maxDepth());
    this.arrayFactory = factory(limits.maxDepth() + 1);
    this.maxBatch = limits.maxBatch();
    this.msgBatchTooLarge = "batch too large: more than " + limits.maxBatch() + " events";
    this.reader = new EventReader(limits);
    this.failures = new ParseFailures(limits);
  }

  static JsonFactory factory(int depth) {
    return JsonFactory.builder()
        // NaN/Infinity tokens are read so they can be reported as field errors, then rejected
        .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
        .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(depth).build())
        .build();
  }

  /** A request body, bytes [off, end), non-empty. */
  void frameBody(byte[] body, int off, int end, BodyFormat format, ParseRun run) {
    int start = checkBytes(body, off, end, run, MSG_EMPTY_BODY, "body");
    if (start >= 0) {
      if (format == BodyFormat.NDJSON) {
        frameNdjson(body, start, end, run);
      } else {
        frameJson(body, start, end, run);
      }
    }
  }

  /** A Kafka record value, non-empty: exactly one object. Returns the event or null. */
  Event frameRecord(byte[] value, ParseRun run) {
    int start = checkBytes(value, 0, value.length, run, "empty record value", "record value");
    return start < 0 ? null : readDocument(value, start, value.length, run);
  }

  /**
   * Skips a UTF-8 BOM, validates the encoding and reports an all-whitespace body. Returns the
   * offset after the BOM, or -1 when an error was reported.
   */
  private static int checkBytes(
      byte[] b, int off, int end, ParseRun run, String emptyMessage, String what) {
    int start = off;
    if (end - start >= 3
        && (b[start] & 0xFF) == 0xEF
        && (b[start + 1] & 0xFF) == 0xBB
        && (b[start + 2] & 0xFF) == 0xBF) {
      start += 3;
    }
    int bad = Utf8.firstInvalid(b, start, end);
    if (bad >= 0) {
      if (b[bad] == 0) {
        run.error(
            -1,
            FieldError.DOCUMENT,
            what
                + " contains a NUL byte at offset "
                + (bad - off)
                + " (UTF-16 and UTF-32 are not accepted; send UTF-8)");
      } else {
        run.error(
            -1,
            FieldError.DOCUMENT,
            what + " is not valid UTF-8 (malformed byte at offset " + (bad - off) + ")");
      }
      return -1;
    }
    if (skipWs(b, start, end) >= end) {
      run.error(-1, FieldError.DOCUMENT, emptyMessage);
      return -1;
    }
    return start;
  }

  private static int skipWs(byte[] b, int i, int end) {
    while (i < end) {
      byte c = b[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return i;
      }
      i++;
    }
    return end;
  }

  private void frameJson(byte[] body, int start, int end, ParseRun run) {
    int first = skipWs(body, start, end);
    if (body[first] != '[') {
      Event e = readDocument(body, start, end, run);
      if (e != null) {
        run.events.add(e);
      }
      return;
    }
    try (JsonParser p = arrayFactory.createParser(body, start, end - start)) {
      p.nextToken(); // START_ARRAY
      int index = 0;
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t == null) {
          run.error(-1, FieldError.DOCUMENT, "malformed JSON: unexpected end of input");
          return;
        }
        if (index >= maxBatch) {
          // bounded work: stop here; only this error is reported
          run.tooLarge(msgBatchTooLarge);
          return;
        }
        if (run.capped) {
          // past the error cap: only count the rest, so an oversized batch is still named
          p.skipChildren();
          index++;
          continue;
        }
        run.eventIndex = index;
        run.currentField = null;
        try {
          if (t == JsonToken.START_OBJECT) {
            Event e = reader.read(p, index, run);
            if (e != null) {
              run.events.add(e);
            }
          } else {
            run.error(index, FieldError.DOCUMENT, MSG_NOT_OBJECT);
            p.skipChildren();
          }
        } catch (ErrorCollector.CapReached capReached) {
          // the cap was reached inside this element: skip to its end (back at array level)
          while (p.getParsingContext().getNestingDepth() > 1) {
            if (p.nextToken() == null) {
              return;
            }
          }
        }
        index++;
      }
      if (run.capped) {
        return;
      }
      run.betweenEvents();
      if (index == 0) {
        run.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BATCH);
      }
      checkTrailing(p, -1, run, 0);
    } catch (IOException | RuntimeException e) {
      failures.report(e, -1, 0, run);
    }
  }

  /** One object as the whole document (JSON body with a single event, or a Kafka value). */
  private Event readDocument(byte[] body, int start, int end, ParseRun run) {
    try (JsonParser p = objectFactory.createParser(body, start, end - start)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        run.error(
            -1,
            FieldError.DOCUMENT,
            run.single ? "record value must be a JSON object" : MSG_TOP_LEVEL);
        return null;
      }
      run.eventIndex = 0;
      Event e = reader.read(p, 0, run);
      run.betweenEvents();
      checkTrailing(p, -1, run, 0);
      return e;
    } catch (IOException | RuntimeException e) {
      failures.report(e, -1, 0, run);
      return null;
    }
  }

  private void frameNdjson(byte[] body, int start, int end, ParseRun run) {
    int lineStart = start;
    int lineIndex = 0;
    int count = 0;
    while (lineStart <= end) {
      int nl = lineStart;
      while (nl < end && body[nl] != '\n') {
        nl++;
      }
      if (skipWs(body, lineStart, nl) < nl) {
        if (++count > maxBatch) {
          run.tooLarge(msgBatchTooLarge);
          return;
        }
        if (!run.capped) {
          try {
            readLine(body, lineStart, nl, lineIndex, run);
          } catch (ErrorCollector.CapReached capReached) {
            // keep counting lines so an oversized batch is still named
          }
        }
      }
      if (nl >= end) {
        break;
      }
      lineStart = nl + 1;
      lineIndex++;
    }
    if (count == 0 && !run.capped) {
      run.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BODY);
    }
  }

  private void readLine(byte[] body, int start, int end, int lineIndex, ParseRun run) {
    int lineNo = lineIndex + 1;
    run.eventIndex = lineIndex;
    run.currentField = null;
    try (JsonParser p = objectFactory.createParser(body, start, end - start)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        run.error(lineIndex, FieldError.DOCUMENT, "line " + lineNo + " must be a JSON object");
        return;
      }
      Event e = reader.read(p, lineIndex, run);
      if (e != null) {
        run.events.add(e);
      }
      run.currentField = null;
      checkTrailing(p, lineIndex, run, lineNo);
    } catch (IOException | RuntimeException e) {
      failures.report(e, lineIndex, lineNo, run);
    }
  }

  private static void checkTrailing(JsonParser p, int index, ParseRun run, int lineNo)
      throws IOException {
    if (p.nextToken() != null) {
      run.error(
          index,
          FieldError.DOCUMENT,
          "unexpected content after the JSON value at "
              + ParseFailures.where(p.currentTokenLocation(), lineNo));
    }
  }
}
