package io.ambergarden.event;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * Parses and validates events from HTTP bodies and Kafka record values, in one streaming pass.
 *
 * <p>A batch is validated whole and all errors are collected (at most
 * {@value #MAX_ERRORS}, then a final note at index -1). If there is any error the result
 * holds no events. Bad input never throws: malformed UTF-8, malformed JSON, excessive nesting,
 * NaN, huge numbers and so on all come back as {@link FieldError}s.
 *
 * <p>Framing and indices:
 * <ul>
 *   <li>{@link BodyFormat#JSON}: one object (index 0) or an array of objects (index = position).
 *       An empty array is an error ({@value #MSG_EMPTY_BATCH}).</li>
 *   <li>{@link BodyFormat#NDJSON}: one object per line; blank lines are skipped but still counted,
 *       so an error's index is the 0-based physical line number. A malformed line is reported and
 *       the next lines are still validated.</li>
 *   <li>{@link #parseOne(byte[])}: one object; field errors have index 0.</li>
 *   <li>Whole-document problems (empty body, bad UTF-8, malformed JSON array, batch too large,
 *       the error-cap note) have index -1 and field {@code $}.</li>
 * </ul>
 * A leading UTF-8 BOM is skipped; UTF-16/32 and any NUL byte are rejected. Nesting depth counts
 * the event object as level 1 (a wrapping array is not counted), so the same event is accepted
 * or rejected alike in every framing. When a batch has more than {@code maxBatch} events the
 * result is exactly one error ({@code batch too large: more than N events}) and the rest of the
 * body is not validated. NaN/Infinity tokens are read (Jackson's ALLOW_NON_NUMERIC_NUMBERS) only
 * so that they become field errors; they are never accepted anywhere, payload included.
 *
 * <p>Immutable and thread-safe; share one instance.
 */
public final class EventParser {

    /** At most this many errors are reported; one more entry, a note, follows when there were more. */
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
    public static final String MSG_TS_MICROS = "looks like epoch microseconds; send epoch milliseconds";
    public static final String MSG_FINITE = "must be a finite number (NaN and Infinity are not allowed)";
    public static final String MSG_NUMBER = "must be a finite number";
    public static final String MSG_METRICS_TYPE = "must be an object of name -> number";
    public static final String MSG_TAGS_TYPE = "must be an object of name -> string";
    public static final String MSG_DUPLICATE_METRIC = "duplicate metric name";
    public static final String MSG_PAYLOAD_FINITE = "must be a finite number (NaN and Infinity are not allowed)";

    private static final String ID_CHARSET = "letters, digits and . _ : -";

    private static final boolean[] ID_CHARS = new boolean[128];

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

    private static final int F_DEVICE_ID = 1;
    private static final int F_TS = 2;
    private static final int F_EVENT_ID = 4;
    private static final int F_DEVICE_TYPE = 8;
    private static final int F_STATUS = 16;
    private static final int F_CODE = 32;
    private static final int F_METRICS = 64;
    private static final int F_TAGS = 128;
    private static final int F_PAYLOAD = 256;

    private static final String[] KNOWN = {
        "deviceId", "ts", "eventId", "deviceType", "status", "code", "metrics", "tags", "payload"
    };

    private static final int CODE_MAX = 999_999;

    private final EventLimits limits;
    private final Clock clock;
    /** Nesting limit = maxDepth: a single object, an NDJSON line or a Kafka value. */
    private final JsonFactory objectFactory;
    /** Nesting limit = maxDepth + 1: the wrapping batch array does not count. */
    private final JsonFactory arrayFactory;

    private final String msgTooOld;
    private final String msgTooNew;
    private final String msgBatchTooLarge;
    private final String msgDepth;
    private final String msgPayloadTooLarge;
    private final String msgTooManyMetrics;
    private final String msgTooManyTags;

    public EventParser(EventLimits limits, Clock clock) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.objectFactory = factory(limits.maxDepth());
        this.arrayFactory = factory(limits.maxDepth() + 1);
        this.msgTooOld = "is older than the retention of " + duration(limits.retentionMillis());
        this.msgTooNew = "is too far in the future (more than " + duration(limits.futureSkewMillis())
                + " ahead of server time)";
        this.msgBatchTooLarge = "batch too large: more than " + limits.maxBatch() + " events";
        this.msgDepth = "JSON is nested deeper than " + limits.maxDepth() + " levels";
        this.msgPayloadTooLarge = "payload too large: more than " + limits.maxPayloadBytes()
                + " bytes as compact JSON";
        this.msgTooManyMetrics = "too many metrics: at most " + limits.maxMetrics();
        this.msgTooManyTags = "too many tags: at most " + limits.maxTags();
    }

    /** Default limits and the system UTC clock. */
    public EventParser() {
        this(EventLimits.defaults(), Clock.systemUTC());
    }

    public EventLimits limits() {
        return limits;
    }

    private static JsonFactory factory(int depth) {
        return JsonFactory.builder()
                // NaN/Infinity tokens are read so they can be reported as field errors, then rejected
                .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(depth).build())
                .build();
    }

    // =====================================================================================
    // results
    // =====================================================================================

    /**
     * The outcome of parsing a request body. A batch is all-or-nothing: when {@link #errors()} is
     * not empty, {@link #events()} is empty.
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

    // =====================================================================================
    // public entry points
    // =====================================================================================

    /** Parses a whole request body. */
    public BatchResult parseBatch(byte[] body, BodyFormat format) {
        return parseBatch(body, 0, body == null ? 0 : body.length, format);
    }

    /** Parses {@code length} bytes of {@code body} from {@code offset}. */
    public BatchResult parseBatch(byte[] body, int offset, int length, BodyFormat format) {
        Objects.requireNonNull(format, "format");
        Ctx ctx = new Ctx(clock.millis(), false);
        try {
            if (body == null || length == 0) {
                ctx.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BODY);
            } else {
                Objects.checkFromIndexSize(offset, length, body.length);
                int end = offset + length;
                int start = checkBytes(body, offset, end, ctx, MSG_EMPTY_BODY, "body");
                if (start >= 0) {
                    if (format == BodyFormat.NDJSON) {
                        parseNdjson(body, start, end, ctx);
                    } else {
                        parseJson(body, start, end, ctx);
                    }
                }
            }
        } catch (Stop stop) {
            // error cap reached; the note is already in the list
        }
        return ctx.errors.isEmpty() ? new BatchResult(ctx.events, List.of())
                : new BatchResult(List.of(), ctx.errors);
    }

    /** Parses one Kafka record value: exactly one JSON object. A null value is an error. */
    public SingleResult parseOne(byte[] value) {
        Ctx ctx = new Ctx(clock.millis(), true);
        Event event = null;
        try {
            if (value == null || value.length == 0) {
                ctx.error(-1, FieldError.DOCUMENT, "empty record value");
            } else {
                int start = checkBytes(value, 0, value.length, ctx, "empty record value", "record value");
                if (start >= 0) {
                    event = parseSingleDocument(value, start, value.length, ctx);
                }
            }
        } catch (Stop stop) {
            // capped
        }
        return ctx.errors.isEmpty() ? new SingleResult(event, List.of()) : new SingleResult(null, ctx.errors);
    }

    // =====================================================================================
    // framing
    // =====================================================================================

    /**
     * Skips a UTF-8 BOM, validates the encoding and reports an all-whitespace body.
     * Returns the offset after the BOM, or -1 when an error was reported.
     */
    private static int checkBytes(byte[] b, int off, int end, Ctx ctx, String emptyMessage, String what) {
        int start = off;
        if (end - start >= 3 && (b[start] & 0xFF) == 0xEF && (b[start + 1] & 0xFF) == 0xBB
                && (b[start + 2] & 0xFF) == 0xBF) {
            start += 3;
        }
        int bad = Utf8.firstInvalid(b, start, end);
        if (bad >= 0) {
            if (b[bad] == 0) {
                ctx.error(-1, FieldError.DOCUMENT, what + " contains a NUL byte at offset " + (bad - off)
                        + " (UTF-16 and UTF-32 are not accepted; send UTF-8)");
            } else {
                ctx.error(-1, FieldError.DOCUMENT, what + " is not valid UTF-8 (malformed byte at offset "
                        + (bad - off) + ")");
            }
            return -1;
        }
        if (skipWs(b, start, end) >= end) {
            ctx.error(-1, FieldError.DOCUMENT, emptyMessage);
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

    private void parseJson(byte[] body, int start, int end, Ctx ctx) {
        int first = skipWs(body, start, end);
        if (body[first] != '[') {
            Event e = parseSingleDocument(body, start, end, ctx);
            if (e != null) {
                ctx.events.add(e);
            }
            return;
        }
        try (JsonParser p = arrayFactory.createParser(body, start, end - start)) {
            p.nextToken(); // START_ARRAY
            int index = 0;
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    ctx.error(-1, FieldError.DOCUMENT, "malformed JSON: unexpected end of input");
                    return;
                }
                if (index >= limits.maxBatch()) {
                    // bounded work: stop here; only this error is reported
                    ctx.tooLarge(msgBatchTooLarge);
                    return;
                }
                if (ctx.capped) {
                    // past the error cap: only count the rest, so an oversized batch is still named
                    p.skipChildren();
                    index++;
                    continue;
                }
                ctx.eventIndex = index;
                ctx.currentField = null;
                try {
                    if (t == JsonToken.START_OBJECT) {
                        Event e = parseEvent(p, index, ctx);
                        if (e != null) {
                            ctx.events.add(e);
                        }
                    } else {
                        ctx.error(index, FieldError.DOCUMENT, MSG_NOT_OBJECT);
                        p.skipChildren();
                    }
                } catch (Stop stop) {
                    // the cap was reached inside this element: skip to its end (back at array level)
                    while (p.getParsingContext().getNestingDepth() > 1) {
                        if (p.nextToken() == null) {
                            return;
                        }
                    }
                }
                index++;
            }
            if (ctx.capped) {
                return;
            }
            ctx.eventIndex = -1;
            ctx.currentField = null;
            if (index == 0) {
                ctx.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BATCH);
            }
            checkTrailing(p, -1, ctx, 0);
        } catch (IOException | RuntimeException e) {
            handleParseFailure(e, -1, 0, ctx);
        }
    }

    /** One object as the whole document (JSON body with a single event, or a Kafka value). */
    private Event parseSingleDocument(byte[] body, int start, int end, Ctx ctx) {
        try (JsonParser p = objectFactory.createParser(body, start, end - start)) {
            JsonToken t = p.nextToken();
            if (t != JsonToken.START_OBJECT) {
                ctx.error(-1, FieldError.DOCUMENT, ctx.single ? "record value must be a JSON object" : MSG_TOP_LEVEL);
                return null;
            }
            ctx.eventIndex = 0;
            Event e = parseEvent(p, 0, ctx);
            ctx.eventIndex = -1;
            ctx.currentField = null;
            checkTrailing(p, -1, ctx, 0);
            return e;
        } catch (IOException | RuntimeException e) {
            handleParseFailure(e, -1, 0, ctx);
            return null;
        }
    }

    private void parseNdjson(byte[] body, int start, int end, Ctx ctx) {
        int lineStart = start;
        int lineIndex = 0;
        int count = 0;
        while (lineStart <= end) {
            int nl = lineStart;
            while (nl < end && body[nl] != '\n') {
                nl++;
            }
            if (skipWs(body, lineStart, nl) < nl) {
                if (++count > limits.maxBatch()) {
                    ctx.tooLarge(msgBatchTooLarge);
                    return;
                }
                if (!ctx.capped) {
                    try {
                        parseLine(body, lineStart, nl, lineIndex, ctx);
                    } catch (Stop stop) {
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
        if (count == 0 && !ctx.capped) {
            ctx.error(-1, FieldError.DOCUMENT, MSG_EMPTY_BODY);
        }
    }

    private void parseLine(byte[] body, int start, int end, int lineIndex, Ctx ctx) {
        int lineNo = lineIndex + 1;
        ctx.eventIndex = lineIndex;
        ctx.currentField = null;
        try (JsonParser p = objectFactory.createParser(body, start, end - start)) {
            JsonToken t = p.nextToken();
            if (t != JsonToken.START_OBJECT) {
                ctx.error(lineIndex, FieldError.DOCUMENT, "line " + lineNo + " must be a JSON object");
                return;
            }
            Event e = parseEvent(p, lineIndex, ctx);
            if (e != null) {
                ctx.events.add(e);
            }
            ctx.currentField = null;
            checkTrailing(p, lineIndex, ctx, lineNo);
        } catch (IOException | RuntimeException e) {
            handleParseFailure(e, lineIndex, lineNo, ctx);
        }
    }

    private static void checkTrailing(JsonParser p, int index, Ctx ctx, int lineNo) throws IOException {
        if (p.nextToken() != null) {
            ctx.error(index, FieldError.DOCUMENT, "unexpected content after the JSON value at "
                    + where(p.currentTokenLocation(), lineNo));
        }
    }

    private void handleParseFailure(Exception e, int index, int lineNo, Ctx ctx) {
        if (e instanceof Stop) {
            throw (Stop) e;
        }
        if (e instanceof StreamConstraintsException) {
            String m = String.valueOf(e.getMessage());
            String field = ctx.currentField == null ? FieldError.DOCUMENT : path("", ctx.currentField);
            int idx = ctx.eventIndex;
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
            ctx.error(idx, field, msg);
            return;
        }
        if (e instanceof JsonProcessingException) {
            JsonProcessingException jpe = (JsonProcessingException) e;
            ctx.error(index, FieldError.DOCUMENT, "malformed JSON at " + where(jpe.getLocation(), lineNo)
                    + ": " + jpe.getOriginalMessage());
            return;
        }
        if (e instanceof IOException || e instanceof IllegalStateException
                || e instanceof IllegalArgumentException) {
            ctx.error(index, FieldError.DOCUMENT, "malformed JSON: " + e.getMessage());
            return;
        }
        throw (RuntimeException) e;
    }

    private static String where(JsonLocation loc, int lineNo) {
        if (loc == null) {
            return "unknown position";
        }
        int line = lineNo > 0 ? lineNo : loc.getLineNr();
        return "line " + line + ", column " + loc.getColumnNr();
    }

    // =====================================================================================
    // one event
    // =====================================================================================

    /** Parser positioned on START_OBJECT; returns the event, or null when it had errors. */
    private Event parseEvent(JsonParser p, int idx, Ctx ctx) throws IOException {
        final int errorsBefore = ctx.errors.size();
        ctx.metrics = null;
        ctx.metricsOverflow = false;
        ctx.tags = null;
        ctx.tagsOverflow = false;
        String deviceId = null;
        long ts = 0L;
        boolean tsOk = false;
        String eventId = "";
        String deviceType = null;
        String status = null;
        Integer code = null;
        String payload = null;
        int seen = 0;

        String name;
        while ((name = p.nextFieldName()) != null) {
            ctx.currentField = name;
            JsonToken t = p.nextToken();
            int bit = knownBit(name);
            if (bit != 0) {
                if ((seen & bit) != 0) {
                    ctx.error(idx, name, MSG_DUPLICATE);
                    p.skipChildren();
                    continue;
                }
                seen |= bit;
            }
            switch (bit) {
                case F_DEVICE_ID:
                    deviceId = readId(p, t, idx, name, limits.maxIdLength(), true, ctx);
                    break;
                case F_TS:
                    if (readTs(p, t, idx, ctx)) {
                        ts = ctx.tsValue;
                        tsOk = true;
                    }
                    break;
                case F_EVENT_ID: {
                    String v = readId(p, t, idx, name, limits.maxIdLength(), false, ctx);
                    if (v != null) {
                        eventId = v;
                    }
                    break;
                }
                case F_DEVICE_TYPE:
                    deviceType = readId(p, t, idx, name, limits.maxDeviceTypeLength(), false, ctx);
                    break;
                case F_STATUS:
                    status = readStatus(p, t, idx, ctx);
                    break;
                case F_CODE:
                    code = readCode(p, t, idx, ctx);
                    break;
                case F_METRICS:
                    readMetrics(p, t, idx, ctx);
                    break;
                case F_TAGS:
                    readTags(p, t, idx, ctx);
                    break;
                case F_PAYLOAD:
                    if (t != JsonToken.VALUE_NULL) {
                        payload = copyPayload(p, t, idx, ctx);
                    }
                    break;
                default:
                    readFlat(p, t, idx, name, ctx);
                    break;
            }
        }
        ctx.currentField = null;
        if ((seen & F_DEVICE_ID) == 0) {
            ctx.error(idx, "deviceId", MSG_REQUIRED);
        }
        if ((seen & F_TS) == 0) {
            ctx.error(idx, "ts", MSG_REQUIRED);
        }
        if (ctx.errors.size() != errorsBefore || deviceId == null || !tsOk) {
            return null;
        }
        return new Event(deviceId, ts, eventId, deviceType, status, code, ctx.metrics, ctx.tags, payload);
    }

    private static int knownBit(String name) {
        switch (name) {
            case "deviceId":
                return F_DEVICE_ID;
            case "ts":
                return F_TS;
            case "eventId":
                return F_EVENT_ID;
            case "deviceType":
                return F_DEVICE_TYPE;
            case "status":
                return F_STATUS;
            case "code":
                return F_CODE;
            case "metrics":
                return F_METRICS;
            case "tags":
                return F_TAGS;
            case "payload":
                return F_PAYLOAD;
            default:
                return 0;
        }
    }

    /** A known field name that differs only in case, or null. */
    private static String caseMismatch(String name) {
        int n = name.length();
        if (n < 2 || n > 10) {
            return null;
        }
        for (String k : KNOWN) {
            if (k.length() == n && k.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }

    // ---- ids, deviceType ----

    private String readId(JsonParser p, JsonToken t, int idx, String field, int maxLen, boolean required,
                          Ctx ctx) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            if (required) {
                ctx.error(idx, field, MSG_REQUIRED);
            }
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            ctx.error(idx, field, MSG_STRING);
            p.skipChildren();
            return null;
        }
        String s = p.getText();
        String problem = checkId(s, maxLen, "must be ");
        if (problem != null) {
            ctx.error(idx, field, problem);
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
                return lead + "1-" + maxLen + " characters of " + ID_CHARSET + " (invalid character "
                        + describe(s, i) + " at position " + i + ")";
            }
        }
        if (n <= 2 && s.charAt(0) == '.' && (n == 1 || s.charAt(1) == '.')) {
            return "must not be '.' or '..'";
        }
        return null;
    }

    private static String describe(String s, int i) {
        char c = s.charAt(i);
        if (c > 0x20 && c < 0x7F) {
            return "'" + c + "'";
        }
        int cp = Character.codePointAt(s, i);
        return String.format("U+%04X", cp);
    }

    // ---- ts ----

    /** On success stores the value in ctx.tsValue and returns true. */
    private boolean readTs(JsonParser p, JsonToken t, int idx, Ctx ctx) throws IOException {
        switch (t) {
            case VALUE_NULL:
                ctx.error(idx, "ts", MSG_REQUIRED);
                return false;
            case VALUE_NUMBER_INT: {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    ctx.error(idx, "ts", MSG_TS_RANGE);
                    return false;
                }
                return checkWindow(p.getLongValue(), true, idx, ctx);
            }
            case VALUE_NUMBER_FLOAT:
                ctx.error(idx, "ts", MSG_TS_INTEGER);
                return false;
            case VALUE_STRING: {
                String s = p.getText();
                if (TimestampParser.isDecimalInteger(s)) {
                    ctx.error(idx, "ts", MSG_TS_NUMERIC_STRING);
                    return false;
                }
                TimestampParser.Result r = TimestampParser.parseIso(s);
                if (!r.ok()) {
                    ctx.error(idx, "ts", r.error());
                    return false;
                }
                return checkWindow(r.millis(), false, idx, ctx);
            }
            default:
                ctx.error(idx, "ts", MSG_TS_TYPE);
                p.skipChildren();
                return false;
        }
    }

    private boolean checkWindow(long v, boolean numeric, int idx, Ctx ctx) {
        if (v < ctx.minTs) {
            if (numeric && v >= -Math.floorDiv(-ctx.minTs, 1000L) && v <= Math.floorDiv(ctx.maxTs, 1000L)) {
                ctx.error(idx, "ts", MSG_TS_SECONDS);
            } else {
                ctx.error(idx, "ts", msgTooOld);
            }
            return false;
        }
        if (v > ctx.maxTs) {
            long div = v / 1000L;
            if (numeric && div >= ctx.minTs && div <= ctx.maxTs) {
                ctx.error(idx, "ts", MSG_TS_MICROS);
            } else {
                ctx.error(idx, "ts", msgTooNew);
            }
            return false;
        }
        ctx.tsValue = v;
        return true;
    }

    // ---- status, code ----

    private String readStatus(JsonParser p, JsonToken t, int idx, Ctx ctx) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            ctx.error(idx, "status", MSG_STRING);
            p.skipChildren();
            return null;
        }
        String s = p.getText();
        int n = s.length();
        if (n == 0 || n > limits.maxStatusLength()) {
            ctx.error(idx, "status", "must be 1-" + limits.maxStatusLength() + " characters (got " + n + ")");
            return null;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                ctx.error(idx, "status", "must be printable ASCII without control characters (invalid character "
                        + describe(s, i) + " at position " + i + ")");
                return null;
            }
        }
        return s;
    }

    private Integer readCode(JsonParser p, JsonToken t, int idx, Ctx ctx) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            ctx.error(idx, "code", MSG_INTEGER);
            p.skipChildren();
            return null;
        }
        if (p.getNumberType() == JsonParser.NumberType.INT) {
            int v = p.getIntValue();
            if (v >= 0 && v <= CODE_MAX) {
                return v;
            }
        }
        ctx.error(idx, "code", MSG_CODE_RANGE);
        return null;
    }

    // ---- metrics ----

    private void readMetrics(JsonParser p, JsonToken t, int idx, Ctx ctx) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return;
        }
        if (t != JsonToken.START_OBJECT) {
            ctx.error(idx, "metrics", MSG_METRICS_TYPE);
            p.skipChildren();
            return;
        }
        String name;
        while ((name = p.nextFieldName()) != null) {
            JsonToken vt = p.nextToken();
            addMetric(p, vt, idx, name, "metrics.", ctx);
        }
    }

    /** Top-level field that is not a known one: a number is a flat-form metric, anything else is unknown. */
    private void readFlat(JsonParser p, JsonToken t, int idx, String name, Ctx ctx) throws IOException {
        String known = caseMismatch(name);
        if (known != null) {
            ctx.error(idx, path("", name), MSG_UNKNOWN_FIELD + " (did you mean \"" + known + "\"?)");
            p.skipChildren();
            return;
        }
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            addMetric(p, t, idx, name, "", ctx);
            return;
        }
        ctx.error(idx, path("", name), MSG_UNKNOWN_FIELD);
        p.skipChildren();
    }

    private void addMetric(JsonParser p, JsonToken vt, int idx, String name, String prefix, Ctx ctx)
            throws IOException {
        String nameProblem = checkId(name, limits.maxMetricNameLength(), "metric names must be ");
        if (nameProblem != null) {
            ctx.error(idx, path(prefix, name), nameProblem);
            p.skipChildren();
            return;
        }
        double d;
        if (vt == JsonToken.VALUE_NUMBER_INT || vt == JsonToken.VALUE_NUMBER_FLOAT) {
            d = p.getDoubleValue();
            if (!Double.isFinite(d)) {
                ctx.error(idx, path(prefix, name), MSG_FINITE);
                return;
            }
        } else {
            ctx.error(idx, path(prefix, name), MSG_NUMBER);
            p.skipChildren();
            return;
        }
        LinkedHashMap<String, Double> m = ctx.metrics;
        if (m == null) {
            m = new LinkedHashMap<>();
            ctx.metrics = m;
        } else if (m.containsKey(name)) {
            ctx.error(idx, path(prefix, name), MSG_DUPLICATE_METRIC);
            return;
        }
        if (m.size() >= limits.maxMetrics()) {
            if (!ctx.metricsOverflow) {
                ctx.metricsOverflow = true;
                ctx.error(idx, "metrics", msgTooManyMetrics);
            }
            return;
        }
        m.put(name, d);
    }

    // ---- tags ----

    private void readTags(JsonParser p, JsonToken t, int idx, Ctx ctx) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return;
        }
        if (t != JsonToken.START_OBJECT) {
            ctx.error(idx, "tags", MSG_TAGS_TYPE);
            p.skipChildren();
            return;
        }
        String name;
        while ((name = p.nextFieldName()) != null) {
            JsonToken vt = p.nextToken();
            String nameProblem = checkId(name, limits.maxTagKeyLength(), "tag names must be ");
            if (nameProblem != null) {
                ctx.error(idx, path("tags.", name), nameProblem);
                p.skipChildren();
                continue;
            }
            if (vt != JsonToken.VALUE_STRING) {
                ctx.error(idx, path("tags.", name), MSG_STRING);
                p.skipChildren();
                continue;
            }
            String v = p.getText();
            String valueProblem = checkTagValue(v);
            if (valueProblem != null) {
                ctx.error(idx, path("tags.", name), valueProblem);
                continue;
            }
            LinkedHashMap<String, String> m = ctx.tags;
            if (m == null) {
                m = new LinkedHashMap<>();
                ctx.tags = m;
            } else if (m.containsKey(name)) {
                ctx.error(idx, path("tags.", name), MSG_DUPLICATE);
                continue;
            }
            if (m.size() >= limits.maxTags()) {
                if (!ctx.tagsOverflow) {
                    ctx.tagsOverflow = true;
                    ctx.error(idx, "tags", msgTooManyTags);
                }
                continue;
            }
            m.put(name, v);
        }
    }

    private String checkTagValue(String v) {
        int n = v.length();
        if (n == 0 || n > limits.maxTagValueLength()) {
            return "must be 1-" + limits.maxTagValueLength() + " characters (got " + n + ")";
        }
        for (int i = 0; i < n; i++) {
            char c = v.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                return "must not contain control characters (" + describe(v, i) + " at position " + i + ")";
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(v.charAt(i + 1))) {
                    i++;
                } else {
                    return "contains an unpaired surrogate at position " + i;
                }
            }
        }
        return null;
    }

    // ---- payload ----

    private static final byte OBJ = 1;
    private static final byte ARR = 2;

    /**
     * Copies the payload value (current token {@code first}) to compact JSON text, checking size,
     * duplicate keys and non-finite numbers. Returns null when an error was reported.
     */
    private String copyPayload(JsonParser p, JsonToken first, int idx, Ctx ctx) throws IOException {
        final int max = limits.maxPayloadBytes();
        ByteArrayBuilder out = ctx.payloadOut();
        final byte[] kind = ctx.kind();
        final String[] names = ctx.names;
        final int[] pos = ctx.pos;
        int depth = 0;
        boolean failed = false;
        JsonGenerator g = EventJson.FACTORY.createGenerator(out, JsonEncoding.UTF8);
        try {
            JsonToken t = first;
            while (true) {
                if (failed) {
                    // keep consuming the value, tracking depth only
                    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                        depth++;
                    } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                        depth--;
                    }
                } else {
                    if (t != JsonToken.FIELD_NAME && t != JsonToken.END_OBJECT && t != JsonToken.END_ARRAY
                            && depth > 0 && kind[depth] == ARR) {
                        pos[depth]++;
                    }
                    switch (t) {
                        case START_OBJECT:
                            g.writeStartObject();
                            depth++;
                            kind[depth] = OBJ;
                            names[depth] = null;
                            ctx.keys(depth).clear();
                            break;
                        case START_ARRAY:
                            g.writeStartArray();
                            depth++;
                            kind[depth] = ARR;
                            pos[depth] = -1;
                            break;
                        case END_OBJECT:
                            g.writeEndObject();
                            depth--;
                            break;
                        case END_ARRAY:
                            g.writeEndArray();
                            depth--;
                            break;
                        case FIELD_NAME: {
                            String n = p.currentName();
                            names[depth] = n;
                            if (!ctx.keys(depth).add(n)) {
                                ctx.error(idx, payloadPath(depth, kind, names, pos), MSG_DUPLICATE);
                                failed = true;
                            } else {
                                g.writeFieldName(n);
                            }
                            break;
                        }
                        case VALUE_STRING:
                            g.writeString(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                            break;
                        case VALUE_NUMBER_INT:
                            g.writeNumber(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                            break;
                        case VALUE_NUMBER_FLOAT: {
                            char[] buf = p.getTextCharacters();
                            int off = p.getTextOffset();
                            int len = p.getTextLength();
                            if (!isJsonNumberStart(buf, off, len)) {
                                ctx.error(idx, payloadPath(depth, kind, names, pos), MSG_PAYLOAD_FINITE);
                                failed = true;
                            } else {
                                g.writeNumber(buf, off, len);
                            }
                            break;
                        }
                        case VALUE_TRUE:
                            g.writeBoolean(true);
                            break;
                        case VALUE_FALSE:
                            g.writeBoolean(false);
                            break;
                        case VALUE_NULL:
                            g.writeNull();
                            break;
                        default:
                            ctx.error(idx, payloadPath(depth, kind, names, pos), "unsupported JSON value");
                            failed = true;
                            break;
                    }
                    if (!failed && out.size() + g.getOutputBuffered() > max) {
                        ctx.error(idx, "payload", msgPayloadTooLarge);
                        failed = true;
                    }
                }
                if (depth <= 0) {
                    break;
                }
                t = p.nextToken();
                if (t == null) {
                    throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected end of input");
                }
            }
            if (failed) {
                return null;
            }
            g.flush();
            if (out.size() > max) {
                ctx.error(idx, "payload", msgPayloadTooLarge);
                return null;
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        } finally {
            try {
                g.close();
            } catch (IOException | RuntimeException ignored) {
                // the generator only writes to memory; an unbalanced close after a failure is harmless
            }
            out.reset();
        }
    }

    /** True when the number text is a real JSON number, not NaN/Infinity. */
    private static boolean isJsonNumberStart(char[] buf, int off, int len) {
        if (len == 0) {
            return false;
        }
        char c = buf[off];
        if (c == '-' && len > 1) {
            c = buf[off + 1];
        }
        return c >= '0' && c <= '9';
    }

    private static String payloadPath(int depth, byte[] kind, String[] names, int[] pos) {
        StringBuilder sb = new StringBuilder("payload");
        for (int l = 1; l <= depth; l++) {
            if (kind[l] == OBJ) {
                if (names[l] != null) {
                    appendName(sb.append('.'), names[l]);
                }
            } else {
                sb.append('[').append(pos[l]).append(']');
            }
        }
        return sb.toString();
    }

    // ---- field paths ----

    private static final int MAX_NAME_IN_PATH = 80;

    /** prefix + name, with non-printable characters escaped and long names truncated. */
    static String path(String prefix, String name) {
        int n = name.length();
        if (n <= MAX_NAME_IN_PATH) {
            boolean plain = true;
            for (int i = 0; i < n; i++) {
                char c = name.charAt(i);
                if (c < 0x20 || c > 0x7E) {
                    plain = false;
                    break;
                }
            }
            if (plain) {
                return prefix.isEmpty() ? name : prefix + name;
            }
        }
        return appendName(new StringBuilder(prefix), name).toString();
    }

    private static StringBuilder appendName(StringBuilder sb, String name) {
        int n = Math.min(name.length(), MAX_NAME_IN_PATH);
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (name.length() > MAX_NAME_IN_PATH) {
            sb.append("...");
        }
        return sb;
    }

    private static String duration(long ms) {
        long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] names = {"day", "hour", "minute", "second"};
        for (int i = 0; i < units.length; i++) {
            if (ms % units[i] == 0) {
                long v = ms / units[i];
                return v + " " + names[i] + (v == 1 ? "" : "s");
            }
        }
        return ms + " ms";
    }

    // =====================================================================================
    // per-call state (never shared between threads)
    // =====================================================================================

    private final class Ctx {
        final long minTs;
        final long maxTs;
        final boolean single;
        final ArrayList<FieldError> errors = new ArrayList<>();
        final ArrayList<Event> events = new ArrayList<>();
        int eventIndex = -1;
        String currentField;
        long tsValue;
        LinkedHashMap<String, Double> metrics;
        boolean metricsOverflow;
        LinkedHashMap<String, String> tags;
        boolean tagsOverflow;
        // payload copy scratch
        private ByteArrayBuilder payloadOut;
        private byte[] kind;
        String[] names;
        int[] pos;
        private List<HashSet<String>> keySets;

        Ctx(long now, boolean single) {
            long retention = limits.retentionMillis();
            long skew = limits.futureSkewMillis();
            this.minTs = now - retention > now ? Long.MIN_VALUE : now - retention;
            this.maxTs = now + skew < now ? Long.MAX_VALUE : now + skew;
            this.single = single;
        }

        /** Past the error cap, further errors are dropped. */
        boolean capped;

        void error(int index, String field, String message) {
            if (capped) {
                return;
            }
            if (errors.size() >= MAX_ERRORS) {
                errors.add(new FieldError(-1, FieldError.DOCUMENT, MSG_TOO_MANY_ERRORS));
                capped = true;
                throw Stop.INSTANCE;
            }
            errors.add(new FieldError(index, field, message));
        }

        /** Replaces everything with the one batch-too-large error. */
        void tooLarge(String message) {
            errors.clear();
            events.clear();
            errors.add(new FieldError(-1, FieldError.DOCUMENT, message));
        }

        ByteArrayBuilder payloadOut() {
            if (payloadOut == null) {
                payloadOut = new ByteArrayBuilder(256);
            }
            return payloadOut;
        }

        byte[] kind() {
            if (kind == null) {
                int n = limits.maxDepth() + 2;
                kind = new byte[n];
                names = new String[n];
                pos = new int[n];
                keySets = new ArrayList<>();
            }
            return kind;
        }

        HashSet<String> keys(int depth) {
            while (keySets.size() <= depth) {
                keySets.add(new HashSet<>());
            }
            return keySets.get(depth);
        }
    }

    /** Unwinds parsing once the error cap is reached. */
    private static final class Stop extends RuntimeException {
        static final Stop INSTANCE = new Stop();

        private Stop() {
            super("error cap reached", null, false, false);
        }
    }
}
