package io.ambergarden.event;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes an {@link Event} as compact JSON, in the shape {@link EventParser} accepts: {@code
 * deviceId}, {@code ts} (epoch millis number), {@code eventId} (omitted when empty), then only the
 * non-null optional fields {@code deviceType}, {@code status}, {@code code}; {@code metrics} and
 * {@code tags} only when non-empty; {@code payload} embedded as raw JSON (not as a string). The
 * output parses back to an equal event. Thread-safe.
 */
public final class EventJson {

  static final JsonFactory FACTORY =
      JsonFactory.builder().enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

  private static final SerializableString DEVICE_ID = new SerializedString("deviceId");
  private static final SerializableString TS = new SerializedString("ts");
  private static final SerializableString EVENT_ID = new SerializedString("eventId");
  private static final SerializableString DEVICE_TYPE = new SerializedString("deviceType");
  private static final SerializableString STATUS = new SerializedString("status");
  private static final SerializableString CODE = new SerializedString("code");
  private static final SerializableString METRICS = new SerializedString("metrics");
  private static final SerializableString TAGS = new SerializedString("tags");
  private static final SerializableString PAYLOAD = new SerializedString("payload");

  private EventJson() {}

  /**
   * Reads back trusted JSON of this shape (from the service's own queries; not validated, so never
   * use it on client input: that is {@link EventParser}'s job).
   */
  public static Event fromTrustedJson(io.vertx.core.json.JsonObject o) {
    Map<String, Double> metrics = new java.util.LinkedHashMap<>();
    io.vertx.core.json.JsonObject m = o.getJsonObject("metrics");
    if (m != null) {
      m.forEach(en -> metrics.put(en.getKey(), ((Number) en.getValue()).doubleValue()));
    }
    Map<String, String> tags = new java.util.LinkedHashMap<>();
    io.vertx.core.json.JsonObject t = o.getJsonObject("tags");
    if (t != null) {
      t.forEach(en -> tags.put(en.getKey(), String.valueOf(en.getValue())));
    }
    Object payload = o.getValue("payload");
    return new Event(
        o.getString("deviceId"),
        o.getLong("ts"),
        o.getString("eventId", ""),
        o.getString("deviceType"),
        o.getString("status"),
        o.getInteger("code"),
        metrics,
        tags,
        payload == null ? null : io.vertx.core.json.Json.encode(payload));
  }

  /** A generator of compact UTF-8 JSON, as this class writes it, into {@code out}. */
  public static JsonGenerator generator(OutputStream out) throws IOException {
    return FACTORY.createGenerator(out, JsonEncoding.UTF8);
  }

  /** Compact JSON text of the event. */
  public static String toJson(Event e) {
    return new String(toJsonBytes(e), StandardCharsets.UTF_8);
  }

  /** Compact JSON of the event, UTF-8 encoded. */
  public static byte[] toJsonBytes(Event e) {
    try (ByteArrayBuilder out = new ByteArrayBuilder(256)) {
      try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
        write(g, e);
      }
      return out.toByteArray();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /**
   * Writes the event as one JSON object into an existing generator (e.g. inside an array of query
   * results). The payload is written raw, so it must be valid JSON text.
   */
  public static void write(JsonGenerator g, Event e) throws IOException {
    // an empty eventId means "none"; the parser rejects an explicit "", so it is omitted
    write(g, e, false);
  }

  /**
   * Writes the event as the read API shows it: as {@link #write(JsonGenerator, Event)}, but with
   * {@code eventId} always present ("" when the event had none).
   */
  public static void writeForReads(JsonGenerator g, Event e) throws IOException {
    write(g, e, true);
  }

  private static void write(JsonGenerator g, Event e, boolean emptyEventId) throws IOException {
    g.writeStartObject();
    g.writeFieldName(DEVICE_ID);
    g.writeString(e.deviceId());
    g.writeFieldName(TS);
    g.writeNumber(e.ts());
    if (emptyEventId || !e.eventId().isEmpty()) {
      g.writeFieldName(EVENT_ID);
      g.writeString(e.eventId());
    }
    if (e.deviceType() != null) {
      g.writeFieldName(DEVICE_TYPE);
      g.writeString(e.deviceType());
    }
    if (e.status() != null) {
      g.writeFieldName(STATUS);
      g.writeString(e.status());
    }
    if (e.code() != null) {
      g.writeFieldName(CODE);
      g.writeNumber(e.code());
    }
    if (!e.metrics().isEmpty()) {
      g.writeFieldName(METRICS);
      g.writeStartObject();
      for (Map.Entry<String, Double> m : e.metrics().entrySet()) {
        g.writeFieldName(m.getKey());
        g.writeNumber(m.getValue());
      }
      g.writeEndObject();
    }
    if (!e.tags().isEmpty()) {
      g.writeFieldName(TAGS);
      g.writeStartObject();
      for (Map.Entry<String, String> t : e.tags().entrySet()) {
        g.writeFieldName(t.getKey());
        g.writeString(t.getValue());
      }
      g.writeEndObject();
    }
    if (e.payload() != null) {
      g.writeFieldName(PAYLOAD);
      g.writeRawValue(e.payload());
    }
    g.writeEndObject();
  }
}
