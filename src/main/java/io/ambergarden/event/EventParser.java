package io.ambergarden.event;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * Parses and validates events from HTTP bodies and Kafka record values, in one streaming pass.
 *
 * <p>A batch is validated whole and all errors are collected (at most {@value #MAX_ERRORS}, then a
 * final note at index -1). If there is any error the result holds no events. Bad input never
 * throws: malformed UTF-8, malformed JSON, excessive nesting, NaN, huge numbers and so on all come
 * back as {@link FieldError}s.
 *
 * <p>Framing and indices:
 *
 * <ul>
 *   <li>{@link BodyFormat#JSON}: one object (index 0) or an array of objects (index = position). An
 *       empty array is an error ({@value #MSG_EMPTY_BATCH}).
 *   <li>{@link BodyFormat#NDJSON}: one object per line; blank lines are skipped but still counted,
 *       so an error's index is the 0-based physical line number. A malformed line is reported and
 *       the next lines are still validated.
 *   <li>{@link #parseOne(byte[])}: one object; field errors have index 0.
 *   <li>Whole-document problems (empty body, bad UTF-8, malformed JSON array, batch too large, the
 *       error-cap note) have index -1 and field {@code $}.
 * </ul>
 *
 * A leading UTF-8 BOM is skipped; UTF-16/32 and any NUL byte are rejected. Nesting depth counts the
 * event object as level 1 (a wrapping array is not counted), so the same event is accepted or
 * rejected alike in every framing. When a batch has more than {@code maxBatch} events the result is
 * exactly one error ({@code batch too large: more than N events}) and the rest of the body is not
 * validated. NaN/Infinity tokens are read (Jackson's ALLOW_NON_NUMERIC_NUMBERS) only so that they
 * become field errors; they are never accepted anywhere, payload included.
 *
 * <p>The work is split: {@link BodyFramer} finds the event objects, {@link EventReader} reads one
 * with the field rules ({@link FieldRules}, {@link TimestampRules}, {@link MetricRules}, {@link
 * TagRules}, {@link PayloadCopier}), and a {@link ParseRun} per call collects the events and the
 * errors ({@link ErrorCollector}, {@link ParseFailures}).
 *
 * <p>Immutable and thread-safe; share one instance.
 */
public final class EventParser {

  /**
   * At most this many errors are reported; one more entry, a note, follows when there were more.
   */
  public static final int MAX_ERRORS = 100;

  // ---- messages (stable; callers and tests may match on them) ----
  public static final String MSG_EMPTY_BODY = "empty body";
  public static final String MSG_EMPTY_BATCH = "empty array";
  public static final String MSG_TOO_MANY_ERRORS =
      "too many errors: only the first " + MAX_ERRORS + " are reported";
  public static final String MSG_TOP_LEVEL =
      "top-level value must be a JSON object or an array of objects";
  public static final String MSG_NOT_OBJECT = "must be a JSON object";
  public static final String MSG_REQUIRED = "is required";
  public static final String MSG_DUPLICATE = "duplicate key";
  public static final String MSG_UNKNOWN_FIELD = "unknown field";
  public static final String MSG_STRING = "must be a string";
  public static final String MSG_INTEGER = "must be an integer";
  public static final String MSG_CODE_RANGE = "must be an integer in 0..999999";
  public static final String MSG_TS_INTEGER = "must be an integer (epoch milliseconds)";
  public static final String MSG_TS_TYPE =
      "must be epoch milliseconds (a JSON number) or an ISO-8601 string with offset";
  public static final String MSG_TS_NUMERIC_STRING =
      "must be a JSON number (epoch milliseconds) or an ISO-8601 string with offset, not a numeric string";
  public static final String MSG_TS_RANGE = "is out of range (must fit a signed 64-bit integer)";
  public static final String MSG_TS_SECONDS = "looks like epoch seconds; send epoch milliseconds";
  public static final String MSG_TS_MICROS =
      "looks like epoch microseconds; send epoch milliseconds";
  public static final String MSG_FINITE =
      "must be a finite number (NaN and Infinity are not allowed)";
  public static final String MSG_NUMBER = "must be a finite number";
  public static final String MSG_METRICS_TYPE = "must be an object of name -> number";
  public static final String MSG_TAGS_TYPE = "must be an object of name -> string";
  public static final String MSG_DUPLICATE_METRIC = "duplicate metric name";
  public static final String MSG_PAYLOAD_FINITE =
      "must be a finite number (NaN and Infinity are not allowed)";

  private final EventLimits limits;
  private final Clock clock;
  private final BodyFramer framer;

  public EventParser(EventLimits limits, Clock clock) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.framer = new BodyFramer(limits);
  }

  /** Default limits and the system UTC clock. */
  public EventParser() {
    this(EventLimits.defaults(), Clock.systemUTC());
  }

  public EventLimits limits() {
    return limits;
  }

  public Clock clock() {
    return clock;
  }

  /**
   * The outcome of parsing a request body. A batch is all-or-nothing: when {@link #errors()} is not
   * empty, {@link #events()} is empty.
   */
  public record BatchResult(List<Event> events, List<FieldError> errors) {
    public BatchResult {
      events = List.copyOf(events);
      errors = List.copyOf(errors);
      if (!errors.isEmpty()) {
        events = List.of();
      }
    }

    /** True when the batch is valid (no errors). */
    public boolean ok() {
      return errors.isEmpty();
    }
  }

  /** The outcome of parsing one record value: either an event, or a non-empty list of errors. */
  public record SingleResult(Event event, List<FieldError> errors) {
    public SingleResult {
      errors = List.copyOf(errors);
      if (!errors.isEmpty()) {
        event = null;
      } else {
        Objects.requireNonNull(event, "event");
      }
    }

    /** True when the value held a valid event. */
    public boolean ok() {
      return errors.isEmpty();
    }
  }

  /** Parses a whole request body. */
  public BatchResult parseBatch(byte[] body, BodyFormat format) {
    return parseBatch(body, 0, body == null ? 0 : body.length, format);
  }

  /** Parses {@code length} bytes of {@code body} from {@code offset}. */
  public BatchResult parseBatch(byte[] body, int offset, int length, BodyFormat format) {
    Objects.requireNonNull(format, "format");
    ParseRun run = new ParseRun(clock.millis(), false, limits);
    try {
      if (body == null || length == 0) {
        run.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BODY);
      } else {
        Objects.checkFromIndexSize(offset, length, body.length);
        framer.frameBody(body, offset, offset + length, format, run);
      }
    } catch (ErrorCollector.CapReached capReached) {
      // error cap reached; the note is already in the list
    }
    return run.errors.isEmpty()
        ? new BatchResult(run.events, List.of())
        : new BatchResult(List.of(), run.errors);
  }

  /** Parses one Kafka record value: exactly one JSON object. A null value is an error. */
  public SingleResult parseOne(byte[] value) {
    ParseRun run = new ParseRun(clock.millis(), true, limits);
    Event event = null;
    try {
      if (value == null || value.length == 0) {
        run.error(-1, FieldError.DOCUMENT, "empty record value");
      } else {
        event = framer.frameRecord(value, run);
      }
    } catch (ErrorCollector.CapReached capReached) {
      // capped
    }
    return run.errors.isEmpty()
        ? new SingleResult(event, List.of())
        : new SingleResult(null, run.errors);
  }
}
