package io.ambergarden.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses and validates events in one streaming pass, collecting every error of a batch (up to
 * {@link #MAX_ERRORS}). Accepts the canonical form and seed 002's flat form, where other top-level
 * numeric fields are metrics. Immutable and thread-safe.
 */
public final class EventParser {
  public static final int MAX_ERRORS = 100;
  private static final long SECONDS_HINT_BELOW = 100_000_000_000L; // epoch millis of 1973: smaller is likely seconds

  /** A batch: events when ok, otherwise only errors. */
  public record BatchResult(List<Event> events, List<FieldError> errors) {
    public boolean ok() {
      return errors.isEmpty();
    }
  }

  public record SingleResult(Event event, List<FieldError> errors) {
    public boolean ok() {
      return errors.isEmpty();
    }
  }

  private final EventLimits limits;
  private final Clock clock;
  private final JsonFactory factory;

  public EventParser(EventLimits limits, Clock clock) {
    this.limits = limits;
    this.clock = clock;
    this.factory = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(limits.maxDepth()).build())
        .build();
  }

  public EventLimits limits() {
    return limits;
  }

  public BatchResult parseBatch(byte[] body, BodyFormat format) {
    Errors errors = new Errors();
    List<Event> events = new ArrayList<>();
    if (!Utf8.isValid(body, 0, body.length)) {
      errors.add(-1, "$", "body is not valid UTF-8");
    } else if (isBlank(body, 0, body.length)) {
      errors.add(-1, "$", "empty body");
    } else if (format == BodyFormat.NDJSON) {
      parseLines(body, events, errors);
    } else {
      parseJson(body, events, errors);
    }
    return errors.isEmpty() ? new BatchResult(List.copyOf(events), List.of()) : new BatchResult(List.of(), errors.list());
  }

  public SingleResult parseOne(byte[] value) {
    Errors errors = new Errors();
    Event event = null;
    if (!Utf8.isValid(value, 0, value.length)) {
      errors.add(-1, "$", "value is not valid UTF-8");
    } else if (isBlank(value, 0, value.length)) {
      errors.add(-1, "$", "empty value");
    } else {
      event = parseSingleDocument(value, 0, value.length, 0, errors);
    }
    return errors.isEmpty() ? new SingleResult(event, List.of()) : new SingleResult(null, errors.list());
  }

  private void parseJson(byte[] body, List<Event> events, Errors errors) {
    try (JsonParser p = factory.createParser(body)) {
      JsonToken first = p.nextToken();
      if (first == JsonToken.START_OBJECT) {
        Event e = parseObject(p, 0, errors);
        expectEnd(p, errors);
        if (e != null) {
          events.add(e);
        }
      } else if (first == JsonToken.START_ARRAY) {
        int index = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
          if (t == null) {
            errors.add(-1, "$", "unexpected end of input");
            return;
          }
          if (index >= limits.maxBatch()) {
            errors.add(-1, "$", "batch has more than " + limits.maxBatch() + " events");
            return;
          }
          if (t == JsonToken.START_OBJECT) {
            Event e = parseObject(p, index, errors);
            if (e != null) {
              events.add(e);
            }
          } else {
            errors.add(index, "$", "each array element must be an event object");
            p.skipChildren();
          }
          index++;
        }
        if (index == 0) {
          errors.add(-1, "$", "empty array");
        }
        expectEnd(p, errors);
      } else {
        errors.add(-1, "$", "body must be an event object or an array of event objects");
      }
    } catch (StreamConstraintsException e) {
      errors.add(-1, "$", "JSON nested deeper than " + limits.maxDepth() + " levels");
    } catch (JsonProcessingException e) {
      errors.add(-1, "$", "malformed JSON at line " + e.getLocation().getLineNr() + ", column "
          + e.getLocation().getColumnNr() + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      errors.add(-1, "$", "unreadable body: " + e.getMessage());
    }
  }

  private void parseLines(byte[] body, List<Event> events, Errors errors) {
    int index = 0;
    int start = 0;
    for (int i = 0; i <= body.length; i++) {
      if (i == body.length || body[i] == '\n') {
        if (!isBlank(body, start, i)) {
          if (index >= limits.maxBatch()) {
            errors.add(-1, "$", "batch has more than " + limits.maxBatch() + " events");
            return;
          }
          Event e = parseSingleDocument(body, start, i - start, index, errors);
          if (e != null) {
            events.add(e);
          }
          index++;
          if (errors.full()) {
            return;
          }
        }
        start = i + 1;
      }
    }
  }

  private Event parseSingleDocument(byte[] bytes, int offset, int length, int index, Errors errors) {
    try (JsonParser p = factory.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        errors.add(index, "$", "an event must be a JSON object");
        return null;
      }
      Event e = parseObject(p, index, errors);
      if (p.nextToken() != null) {
        errors.add(index, "$", "unexpected data after the event object");
        return null;
      }
      return e;
    } catch (StreamConstraintsException e) {
      errors.add(index, "$", "JSON nested deeper than " + limits.maxDepth() + " levels");
    } catch (JsonProcessingException e) {
      errors.add(index, "$", "malformed JSON at column " + e.getLocation().getColumnNr() + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      errors.add(index, "$", "unreadable: " + e.getMessage());
    }
    return null;
  }

  private static void expectEnd(JsonParser p, Errors errors) throws IOException {
    if (p.nextToken() != null) {
      errors.add(-1, "$", "unexpected data after the JSON value");
    }
  }

  /** Parses the object whose START_OBJECT was just read; returns null when it had errors. */
  private Event parseObject(JsonParser p, int index, Errors errors) throws IOException {
    int before = errors.count();
    String deviceId = null;
    Long ts = null;
    String eventId = "";
    String deviceType = null;
    String status = null;
    Integer code = null;
    Map<String, Double> metrics = new LinkedHashMap<>();
    Map<String, String> tags = Map.of();
    String payload = null;
    boolean sawTs = false;
    Set<String> seen = new HashSet<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (!seen.add(name)) {
        errors.add(index, name, "duplicate field");
        p.skipChildren();
        continue;
      }
      if (v == JsonToken.VALUE_NULL && !name.equals("payload")) {
        continue; // null means absent
      }
      switch (name) {
        case "deviceId" -> deviceId = id(p, v, index, "deviceId", errors);
        case "eventId" -> {
          String s = id(p, v, index, "eventId", errors);
          eventId = s == null ? "" : s;
        }
        case "ts" -> {
          sawTs = true;
          ts = timestamp(p, v, index, errors);
        }
        case "deviceType" -> deviceType = token(p, v, index, "deviceType", limits.maxDeviceTypeLength(), errors);
        case "status" -> status = text(p, v, index, "status", limits.maxStatusLength(), errors);
        case "code" -> code = code(p, v, index, errors);
        case "metrics" -> metricsObject(p, v, index, metrics, errors);
        case "tags" -> tags = tagsObject(p, v, index, errors);
        case "payload" -> payload = v == JsonToken.VALUE_NULL ? null : payload(p, index, errors);
        default -> {
          if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
            metric(p, v, index, name, "", metrics, errors); // seed 002's flat form
          } else {
            errors.add(index, name, "unknown field (top-level extra fields must be numeric metrics)");
            p.skipChildren();
          }
        }
      }
    }
    if (deviceId == null && errors.countFor(index, "deviceId", before) == 0) {
      errors.add(index, "deviceId", "is required");
    }
    if (!sawTs || (ts == null && errors.countFor(index, "ts", before) == 0)) {
      errors.add(index, "ts", "is required");
    }
    if (errors.count() > before) {
      return null;
    }
    return new Event(deviceId, ts, eventId, deviceType, status, code, metrics, tags, payload);
  }

  private String id(JsonParser p, JsonToken v, int index, String field, Errors errors) throws IOException {
    String s = token(p, v, index, field, limits.maxIdLength(), errors);
    if (s != null && (s.equals(".") || s.equals(".."))) {
      errors.add(index, field, "must not be '.' or '..'");
      return null;
    }
    return s;
  }

  /** A string of [A-Za-z0-9._:-], 1..max chars. */
  private String token(JsonParser p, JsonToken v, int index, String field, int max, Errors errors) throws IOException {
    if (v != JsonToken.VALUE_STRING) {
      errors.add(index, field, "must be a string");
      p.skipChildren();
      return null;
    }
    String s = p.getText();
    if (s.isEmpty() || s.length() > max) {
      errors.add(index, field, "must be 1-" + max + " characters");
      return null;
    }
    if (!Charsets.isToken(s)) {
      errors.add(index, field, "may contain only letters, digits and . _ : -");
      return null;
    }
    return s;
  }

  /** Printable text without control characters, 1..max chars. */
  private String text(JsonParser p, JsonToken v, int index, String field, int max, Errors errors) throws IOException {
    if (v != JsonToken.VALUE_STRING) {
      errors.add(index, field, "must be a string");
      p.skipChildren();
      return null;
    }
    String s = p.getText();
    if (s.isEmpty() || s.length() > max) {
      errors.add(index, field, "must be 1-" + max + " characters");
      return null;
    }
    if (Charsets.hasControl(s)) {
      errors.add(index, field, "must not contain control characters");
      return null;
    }
    return s;
  }

  private Long timestamp(JsonParser p, JsonToken v, int index, Errors errors) throws IOException {
    long value;
    if (v == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        errors.add(index, "ts", "is out of range");
        return null;
      }
      value = p.getLongValue();
    } else if (v == JsonToken.VALUE_NUMBER_FLOAT) {
      errors.add(index, "ts", "must be an integer (epoch milliseconds)");
      return null;
    } else if (v == JsonToken.VALUE_STRING) {
      String s = p.getText();
      TimestampParser.Result r = TimestampParser.iso(s);
      if (!r.ok()) {
        errors.add(index, "ts", Charsets.isDigits(s)
            ? "epoch milliseconds must be a JSON number, not a string" : r.error());
        return null;
      }
      value = r.millis();
    } else {
      errors.add(index, "ts", "must be epoch milliseconds or an ISO-8601 string with an offset");
      p.skipChildren();
      return null;
    }
    long now = clock.millis();
    long oldest = now - limits.retentionMillis();
    long newest = now + limits.futureSkewMillis();
    if (v == JsonToken.VALUE_NUMBER_INT && value >= 0 && value < SECONDS_HINT_BELOW && value <= Long.MAX_VALUE / 1000
        && value * 1000 >= oldest && value * 1000 <= newest) {
      errors.add(index, "ts", "looks like epoch seconds; send epoch milliseconds");
      return null;
    }
    if (value < oldest) {
      errors.add(index, "ts", "is older than the retention of " + limits.retentionMillis() / 86_400_000L + " days");
      return null;
    }
    if (value > newest) {
      errors.add(index, "ts", "is more than " + limits.futureSkewMillis() / 1000 + " s in the future");
      return null;
    }
    return value;
  }

  private static Integer code(JsonParser p, JsonToken v, int index, Errors errors) throws IOException {
    if (v != JsonToken.VALUE_NUMBER_INT) {
      errors.add(index, "code", "must be an integer");
      p.skipChildren();
      return null;
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      errors.add(index, "code", "must be in 0..999999");
      return null;
    }
    long c = p.getLongValue();
    if (c < 0 || c > 999_999) {
      errors.add(index, "code", "must be in 0..999999");
      return null;
    }
    return (int) c;
  }

  private void metricsObject(JsonParser p, JsonToken v, int index, Map<String, Double> metrics, Errors errors)
      throws IOException {
    if (v != JsonToken.START_OBJECT) {
      errors.add(index, "metrics", "must be an object of name -> number");
      p.skipChildren();
      return;
    }
    for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
      String name = p.currentName();
      metric(p, p.nextToken(), index, name, "metrics.", metrics, errors);
    }
  }

  private void metric(JsonParser p, JsonToken v, int index, String name, String prefix, Map<String, Double> metrics,
                      Errors errors) throws IOException {
    String field = prefix + name;
    if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
      errors.add(index, field, "must be a finite number");
      p.skipChildren();
      return;
    }
    if (name.isEmpty() || name.length() > limits.maxMetricNameLength() || !Charsets.isToken(name)) {
      errors.add(index, field, "metric names must be 1-" + limits.maxMetricNameLength()
          + " characters of letters, digits and . _ : -");
      return;
    }
    double d = p.getDoubleValue();
    if (!Double.isFinite(d)) {
      errors.add(index, field, "must be a finite number");
      return;
    }
    if (metrics.containsKey(name)) {
      errors.add(index, field, "duplicate metric");
      return;
    }
    if (metrics.size() >= limits.maxMetrics()) {
      errors.add(index, field, "more than " + limits.maxMetrics() + " metrics");
      return;
    }
    metrics.put(name, d);
  }

  private Map<String, String> tagsObject(JsonParser p, JsonToken v, int index, Errors errors) throws IOException {
    if (v != JsonToken.START_OBJECT) {
      errors.add(index, "tags", "must be an object of name -> string");
      p.skipChildren();
      return Map.of();
    }
    Map<String, String> tags = new LinkedHashMap<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
      String name = p.currentName();
      String field = "tags." + name;
      JsonToken tv = p.nextToken();
      if (tv != JsonToken.VALUE_STRING) {
        errors.add(index, field, "must be a string");
        p.skipChildren();
        continue;
      }
      if (name.isEmpty() || name.length() > limits.maxTagKeyLength() || !Charsets.isToken(name)) {
        errors.add(index, field, "tag names must be 1-" + limits.maxTagKeyLength()
            + " characters of letters, digits and . _ : -");
        continue;
      }
      String value = p.getText();
      if (value.isEmpty() || value.length() > limits.maxTagValueLength() || Charsets.hasControl(value)) {
        errors.add(index, field, "must be 1-" + limits.maxTagValueLength() + " characters without control characters");
        continue;
      }
      if (tags.put(name, value) != null) {
        errors.add(index, field, "duplicate tag");
      } else if (tags.size() > limits.maxTags()) {
        errors.add(index, field, "more than " + limits.maxTags() + " tags");
      }
    }
    return tags;
  }

  /** Copies the payload value compactly; reports it when too large. */
  private String payload(JsonParser p, int index, Errors errors) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try (JsonGenerator g = factory.createGenerator(out)) {
      g.copyCurrentStructure(p);
    }
    if (out.size() > limits.maxPayloadBytes()) {
      errors.add(index, "payload", "payload too large: " + out.size() + " bytes, limit " + limits.maxPayloadBytes());
      return null;
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static boolean isBlank(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      byte c = b[i];
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        return false;
      }
    }
    return true;
  }

  /** Error list with a cap, so a huge bad batch yields a bounded answer. */
  private static final class Errors {
    private final List<FieldError> list = new ArrayList<>();
    private int count;

    void add(int index, String field, String message) {
      count++;
      if (list.size() < MAX_ERRORS) {
        list.add(new FieldError(index, field, message));
      } else if (list.size() == MAX_ERRORS) {
        list.add(new FieldError(-1, "$", "more errors not shown"));
      }
    }

    int count() {
      return count;
    }

    int countFor(int index, String field, int since) {
      int n = 0;
      for (int i = Math.min(since, list.size()); i < list.size(); i++) {
        FieldError e = list.get(i);
        if (e.index() == index && e.field().equals(field)) {
          n++;
        }
      }
      return n;
    }

    boolean full() {
      return list.size() > MAX_ERRORS;
    }

    boolean isEmpty() {
      return count == 0;
    }

    List<FieldError> list() {
      return List.copyOf(list);
    }
  }

}
