package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_DUPLICATE;
import static io.ambergarden.event.EventParser.MSG_PAYLOAD_FINITE;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Copies the {@code payload} value token by token to compact JSON text, in the same pass as the
 * rest of the event. It rejects duplicate keys and NaN/Infinity (naming their path, e.g. {@code
 * payload.a[2].b}) and caps the compact size; nesting depth is capped by the parser itself. After
 * the first error the rest of the value is only consumed.
 */
final class PayloadCopier {

  private static final byte OBJ = 1;
  private static final byte ARR = 2;

  private final int maxBytes;
  private final String msgTooLarge;

  PayloadCopier(EventLimits limits) {
    this.maxBytes = limits.maxPayloadBytes();
    this.msgTooLarge =
        "payload too large: more than " + limits.maxPayloadBytes() + " bytes as compact JSON";
  }

  /**
   * Copies the value whose first token {@code first} is current. Returns null when an error was
   * reported; the parser is then at the end of the value all the same.
   */
  String copy(JsonParser p, JsonToken first, int idx, ParseRun run) throws IOException {
    final int max = maxBytes;
    ByteArrayBuilder out = run.payloadOut();
    final byte[] kind = run.kind();
    final String[] names = run.names;
    final int[] pos = run.pos;
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
          if (t != JsonToken.FIELD_NAME
              && t != JsonToken.END_OBJECT
              && t != JsonToken.END_ARRAY
              && depth > 0
              && kind[depth] == ARR) {
            pos[depth]++;
          }
          switch (t) {
            case START_OBJECT:
              g.writeStartObject();
              depth++;
              kind[depth] = OBJ;
              names[depth] = null;
              run.keys(depth).clear();
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
            case FIELD_NAME:
              {
                String n = p.currentName();
                names[depth] = n;
                if (!run.keys(depth).add(n)) {
                  run.error(idx, path(depth, kind, names, pos), MSG_DUPLICATE);
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
            case VALUE_NUMBER_FLOAT:
              {
                char[] buf = p.getTextCharacters();
                int off = p.getTextOffset();
                int len = p.getTextLength();
                if (!isJsonNumberStart(buf, off, len)) {
                  run.error(idx, path(depth, kind, names, pos), MSG_PAYLOAD_FINITE);
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
              run.error(idx, path(depth, kind, names, pos), "unsupported JSON value");
              failed = true;
              break;
          }
          if (!failed && out.size() + g.getOutputBuffered() > max) {
            run.error(idx, "payload", msgTooLarge);
            failed = true;
          }
        }
        if (depth <= 0) {
          break;
        }
        t = p.nextToken();
        if (t == null) {
          throw new JsonParseException(p, "unexpected end of input");
        }
      }
      if (failed) {
        return null;
      }
      g.flush();
      if (out.size() > max) {
        run.error(idx, "payload", msgTooLarge);
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
  static boolean isJsonNumberStart(char[] buf, int off, int len) {
    if (len == 0) {
      return false;
    }
    char c = buf[off];
    if (c == '-' && len > 1) {
      c = buf[off + 1];
    }
    return c >= '0' && c <= '9';
  }

  /** The path of the current token, e.g. {@code payload.a[2].b}. */
  private static String path(int depth, byte[] kind, String[] names, int[] pos) {
    StringBuilder sb = new StringBuilder("payload");
    for (int l = 1; l <= depth; l++) {
      if (kind[l] == OBJ) {
        if (names[l] != null) {
          FieldPaths.appendName(sb.append('.'), names[l]);
        }
      } else {
        sb.append('[').append(pos[l]).append(']');
      }
    }
    return sb.toString();
  }
}
