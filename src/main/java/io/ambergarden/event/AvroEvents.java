package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_CODE_RANGE;
import static io.ambergarden.event.EventParser.MSG_FINITE;
import static io.ambergarden.event.FieldPaths.path;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;

/**
 * Events in Avro single-object encoding (the 2-byte marker C3 01, the schema's 8-byte CRC-64-AVRO
 * fingerprint, then the binary record): every schema of {@code schema/avro/} is known by its
 * fingerprint, and a record is read with the newest one, so a record written with an older version
 * is resolved to it (a field added later takes its default). The decoded record then passes the
 * same rules as a JSON event ({@link FieldRules}, the ts window, metric, tag and payload rules),
 * with the same messages. An unknown fingerprint is an error on field {@value #SCHEMA_FIELD}; bytes
 * that do not decode are a document error ({@code $}). Thread-safe.
 */
public final class AvroEvents {
  /** Every file of schema/avro/, oldest first; the last one reads. AvroEventsTest checks it. */
  public static final List<String> SCHEMAS =
      List.of("device-event-v1.avsc", "device-event-v2.avsc");

  /** The field an unknown schema fingerprint is reported on. */
  public static final String SCHEMA_FIELD = "$schema";

  static {
    // Avro allocates a string, bytes or collection at its declared length before reading it; a
    // record can never be larger than a Kafka record, so a bigger length is refused, not allocated.
    // Set before any Avro decoder class is loaded; an explicit -D setting wins.
    limit("org.apache.avro.limits.string.maxLength", 1 << 20);
    limit("org.apache.avro.limits.bytes.maxLength", 1 << 20);
    limit("org.apache.avro.limits.collectionItems.maxLength", 10_000);
  }

  private static final List<Schema> VERSIONS = load();

  private final EventLimits limits;
  private final Clock clock;
  private final TimestampRules timestamps;
  private final TagRules tags;
  private final PayloadCopier payloads;
  private final JsonFactory payloadFactory;
  private final BinaryMessageDecoder<GenericRecord> decoder;

  public AvroEvents(EventLimits limits, Clock clock) {
    this.limits = limits;
    this.clock = clock;
    this.timestamps = new TimestampRules(limits);
    this.tags = new TagRules(limits);
    this.payloads = new PayloadCopier(limits);
    // the payload is one level below the event object, as in JSON
    this.payloadFactory = BodyFramer.factory(Math.max(1, limits.maxDepth() - 1));
    SchemaStore.Cache store = new SchemaStore.Cache();
    VERSIONS.forEach(store::addSchema);
    this.decoder = new BinaryMessageDecoder<>(GenericData.get(), latest(), store);
  }

  /** True when the bytes start with the single-object marker (never valid UTF-8 JSON). */
  public static boolean isSingleObject(byte[] value) {
    return value != null && value.length >= 10 && value[0] == (byte) 0xC3 && value[1] == 0x01;
  }

  /** The schema of a version, 1-based. */
  public static Schema version(int v) {
    return VERSIONS.get(v - 1);
  }

  public static Schema latest() {
    return VERSIONS.get(VERSIONS.size() - 1);
  }

  /** The CRC-64-AVRO fingerprint single-object encoding carries. */
  public static long fingerprint(Schema s) {
    return SchemaNormalization.parsingFingerprint64(s);
  }

  /** An encoder for records of {@code schema} (producers, tests, the benchmark). */
  public static BinaryMessageEncoder<GenericRecord> encoder(Schema schema) {
    return new BinaryMessageEncoder<>(GenericData.get(), schema);
  }

  /** Decodes and validates one record value. */
  public EventParser.SingleResult decode(byte[] value) {
    ParseRun run = new ParseRun(clock.millis(), true, limits);
    GenericRecord r;
    try {
      r = decoder.decode(value);
    } catch (MissingSchemaException e) {
      run.error(-1, SCHEMA_FIELD, "unknown Avro schema fingerprint (not in schema/avro/)");
      return new EventParser.SingleResult(null, run.errors);
    } catch (IOException | RuntimeException e) {
      run.error(
          -1, FieldError.DOCUMENT, "not a decodable Avro record: " + e.getClass().getSimpleName());
      return new EventParser.SingleResult(null, run.errors);
    }
    try {
      Event e = read(r, run);
      return run.errors.isEmpty()
          ? new EventParser.SingleResult(e, List.of())
          : new EventParser.SingleResult(null, run.errors);
    } catch (ErrorCollector.CapReached capped) {
      return new EventParser.SingleResult(null, run.errors);
    }
  }

  private Event read(GenericRecord r, ParseRun run) {
    String deviceId = id(r, "deviceId", limits.maxIdLength(), run);
    Object ts = r.get("ts");
    boolean tsOk = ts instanceof Long l && timestamps.check(l, 0, run);
    String eventId = id(r, "eventId", limits.maxIdLength(), run);
    String deviceType = id(r, "deviceType", limits.maxDeviceTypeLength(), run);
    String status = text(r, "status");
    if (status != null) {
      String problem = FieldRules.checkStatus(status, limits.maxStatusLength());
      if (problem != null) {
        run.error(0, "status", problem);
      }
    }
    Object code = r.get("code");
    if (code instanceof Integer c && (c < 0 || c > 999_999)) {
      run.error(0, "code", MSG_CODE_RANGE);
    }
    Map<String, Double> metrics = metrics(r, run);
    Map<String, String> tagMap = tags(r, run);
    String site = r.hasField("site") ? text(r, "site") : null;
    if (site != null) {
      String problem = tags.checkValue(site);
      if (problem != null) {
        run.error(0, "site", problem);
      } else if (tagMap.containsKey("site") && !tagMap.get("site").equals(site)) {
        run.error(0, "site", "differs from tags.site");
      } else {
        tagMap.put("site", site);
      }
    }
    String payload = payload(text(r, "payload"), run);
    if (!run.errors.isEmpty() || deviceId == null || !tsOk) {
      return null;
    }
    return new Event(
        deviceId, (Long) ts, eventId, deviceType, status, (Integer) code, metrics, tagMap, payload);
  }

  private static String text(GenericRecord r, String field) {
    Object v = r.get(field);
    return v == null ? null : v.toString();
  }

  private String id(GenericRecord r, String field, int maxLen, ParseRun run) {
    String v = text(r, field);
    if (v == null) {
      return null;
    }
    String problem = FieldRules.checkId(v, maxLen, "must be ");
    if (problem != null) {
      run.error(0, field, problem);
      return null;
    }
    return v;
  }

  private Map<String, Double> metrics(GenericRecord r, ParseRun run) {
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    Object m = r.get("metrics");
    if (!(m instanceof Map<?, ?> map)) {
      return out;
    }
    if (map.size() > limits.maxMetrics()) {
      run.error(0, "metrics", "too many metrics: at most " + limits.maxMetrics());
      return out;
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String name = e.getKey().toString();
      String problem =
          FieldRules.checkId(name, limits.maxMetricNameLength(), "metric names must be ");
      if (problem != null) {
        run.error(0, path("metrics.", name), problem);
      } else if (!(e.getValue() instanceof Double d) || !Double.isFinite(d)) {
        run.error(0, path("metrics.", name), MSG_FINITE);
      } else {
        out.put(name, d);
      }
    }
    return out;
  }

  private Map<String, String> tags(GenericRecord r, ParseRun run) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    Object t = r.get("tags");
    if (!(t instanceof Map<?, ?> map)) {
      return out;
    }
    if (map.size() > limits.maxTags()) {
      run.error(0, "tags", "too many tags: at most " + limits.maxTags());
      return out;
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String name = e.getKey().toString();
      String value = String.valueOf(e.getValue());
      String problem = FieldRules.checkId(name, limits.maxTagKeyLength(), "tag names must be ");
      if (problem == null) {
        problem = tags.checkValue(value);
      }
      if (problem != null) {
        run.error(0, path("tags.", name), problem);
      } else {
        out.put(name, value);
      }
    }
    return out;
  }

  /** The payload's JSON text, checked and made compact by the JSON payload rules. */
  private String payload(String text, ParseRun run) {
    if (text == null) {
      return null;
    }
    run.currentField = "payload";
    try (JsonParser p = payloadFactory.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        run.error(0, "payload", "must be JSON text");
        return null;
      }
      String out = payloads.copy(p, t, 0, run);
      if (p.nextToken() != null) {
        run.error(0, "payload", "must be one JSON value");
        return null;
      }
      return out;
    } catch (IOException | RuntimeException e) {
      if (e instanceof ErrorCollector.CapReached c) {
        throw c;
      }
      run.error(0, "payload", "must be JSON text (" + e.getClass().getSimpleName() + ")");
      return null;
    } finally {
      run.currentField = null;
    }
  }

  private static void limit(String property, int value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, Integer.toString(value));
    }
  }

  private static List<Schema> load() {
    List<Schema> out = new ArrayList<>();
    for (String name : SCHEMAS) {
      try (InputStream in =
          AvroEvents.class.getClassLoader().getResourceAsStream("schema/avro/" + name)) {
        if (in == null) {
          throw new IllegalStateException("schema/avro/" + name + " is not on the classpath");
        }
        out.add(new Schema.Parser().parse(in));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return List.copyOf(out);
  }
}
