package io.ambergarden.web.read;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventJson;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Stored events as the read API shows them: {@code deviceId}, {@code ts}, {@code eventId} (always,
 * "" when the event had none), then the optional fields that are set; the payload as JSON, not as
 * text. Written with Jackson's streaming generator straight into the reply buffer: no JSON tree per
 * event, no intermediate String, and the stored payload (compact JSON checked at ingest) copied as
 * it is instead of being parsed again.
 */
public final class EventApiJson {
  private EventApiJson() {}

  /** One event. */
  public static Buffer of(Event e) {
    return write(256, g -> EventJson.writeForReads(g, e));
  }

  /** NDJSON: each event as a page item on a line of its own, each line ending with a newline. */
  public static Buffer lines(List<Event> items) {
    return write(
        64 + 256 * items.size(),
        g -> {
          g.setRootValueSeparator(null); // the newline separates the lines, no space before them
          for (Event e : items) {
            EventJson.writeForReads(g, e);
            g.writeRaw('\n');
          }
        });
  }

  /** A page: {@code {"items":[...],"next":next}}, next null on the last page. */
  public static Buffer page(List<Event> items, String next) {
    return write(
        128 + 256 * items.size(),
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("items");
          for (Event e : items) {
            EventJson.writeForReads(g, e);
          }
          g.writeEndArray();
          g.writeStringField("next", next);
          g.writeEndObject();
        });
  }

  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static Buffer write(int sizeHint, Body body) {
    Buffer out = Buffer.buffer(sizeHint);
    try (JsonGenerator g = EventJson.generator(new BufferOutput(out))) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Appends to a buffer; Jackson's generator buffers before it writes, so calls are few. */
  private static final class BufferOutput extends OutputStream {
    private final Buffer buffer;

    BufferOutput(Buffer buffer) {
      this.buffer = buffer;
    }

    @Override
    public void write(int b) {
      buffer.appendByte((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      buffer.appendBytes(b, off, len);
    }
  }
}
