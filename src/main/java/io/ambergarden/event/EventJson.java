package io.ambergarden.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The canonical JSON form of an event: what goes to Kafka, to readers and to the live feed. */
public final class EventJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private EventJson() {
  }

  public static String toJson(Event e) {
    return new String(toJsonBytes(e), StandardCharsets.UTF_8);
  }

  public static byte[] toJsonBytes(Event e) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("deviceId", e.deviceId());
      g.writeNumberField("ts", e.ts());
      if (!e.eventId().isEmpty()) {
        g.writeStringField("eventId", e.eventId());
      }
      if (e.deviceType() != null) {
        g.writeStringField("deviceType", e.deviceType());
      }
      if (e.status() != null) {
        g.writeStringField("status", e.status());
      }
      if (e.code() != null) {
        g.writeNumberField("code", e.code());
      }
      if (!e.metrics().isEmpty()) {
        g.writeObjectFieldStart("metrics");
        for (Map.Entry<String, Double> m : e.metrics().entrySet()) {
          g.writeNumberField(m.getKey(), m.getValue());
        }
        g.writeEndObject();
      }
      if (!e.tags().isEmpty()) {
        g.writeObjectFieldStart("tags");
        for (Map.Entry<String, String> t : e.tags().entrySet()) {
          g.writeStringField(t.getKey(), t.getValue());
        }
        g.writeEndObject();
      }
      if (e.payload() != null) {
        g.writeFieldName("payload");
        g.writeRawValue(e.payload());
      }
      g.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return out.toByteArray();
  }
}
