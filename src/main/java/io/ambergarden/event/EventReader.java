package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_DUPLICATE;
import static io.ambergarden.event.EventParser.MSG_REQUIRED;
import static io.ambergarden.event.EventParser.MSG_UNKNOWN_FIELD;
import static io.ambergarden.event.FieldPaths.path;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Reads one event object field by field and hands each value to its rule; reports a known field
 * given twice, a missing deviceId or ts, and unknown fields (a top-level number is a flat-form
 * metric, a known name in the wrong case gets a hint). Builds the {@link Event} only when the
 * object had no error. Immutable.
 */
final class EventReader {

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

  private final EventLimits limits;
  private final FieldRules fields;
  private final TimestampRules timestamps;
  private final MetricRules metrics;
  private final TagRules tags;
  private final PayloadCopier payloads;

  EventReader(EventLimits limits) {
    this.limits = limits;
    this.fields = new FieldRules(limits);
    this.timestamps = new TimestampRules(limits);
    this.metrics = new MetricRules(limits);
    this.tags = new TagRules(limits);
    this.payloads = new PayloadCopier(limits);
  }

  /** Parser positioned on START_OBJECT; returns the event, or null when it had errors. */
  Event read(JsonParser p, int idx, ParseRun run) throws IOException {
    final int errorsBefore = run.errors.size();
    run.startEvent();
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
      run.currentField = name;
      JsonToken t = p.nextToken();
      int bit = knownBit(name);
      if (bit != 0) {
        if ((seen & bit) != 0) {
          run.error(idx, name, MSG_DUPLICATE);
          p.skipChildren();
          continue;
        }
        seen |= bit;
      }
      switch (bit) {
        case F_DEVICE_ID:
          deviceId = fields.readId(p, t, idx, name, limits.maxIdLength(), true, run);
          break;
        case F_TS:
          if (timestamps.read(p, t, idx, run)) {
            ts = run.tsValue;
            tsOk = true;
          }
          break;
        case F_EVENT_ID:
          {
            String v = fields.readId(p, t, idx, name, limits.maxIdLength(), false, run);
            if (v != null) {
              eventId = v;
            }
            break;
          }
        case F_DEVICE_TYPE:
          deviceType = fields.readId(p, t, idx, name, limits.maxDeviceTypeLength(), false, run);
          break;
        case F_STATUS:
          status = fields.readStatus(p, t, idx, run);
          break;
        case F_CODE:
          code = fields.readCode(p, t, idx, run);
          break;
        case F_METRICS:
          metrics.readObject(p, t, idx, run);
          break;
        case F_TAGS:
          tags.readObject(p, t, idx, run);
          break;
        case F_PAYLOAD:
          if (t != JsonToken.VALUE_NULL) {
            payload = payloads.copy(p, t, idx, run);
          }
          break;
        default:
          readOther(p, t, idx, name, run);
          break;
      }
    }
    run.currentField = null;
    if ((seen & F_DEVICE_ID) == 0) {
      run.error(idx, "deviceId", MSG_REQUIRED);
    }
    if ((seen & F_TS) == 0) {
      run.error(idx, "ts", MSG_REQUIRED);
    }
    if (run.errors.size() != errorsBefore || deviceId == null || !tsOk) {
      return null;
    }
    return new Event(
        deviceId, ts, eventId, deviceType, status, code, run.metrics, run.tags, payload);
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

  /**
   * A top-level field that is not a known one: a number is a flat-form metric, anything else is
   * unknown.
   */
  private void readOther(JsonParser p, JsonToken t, int idx, String name, ParseRun run)
      throws IOException {
    String known = caseMismatch(name);
    if (known != null) {
      run.error(idx, path("", name), MSG_UNKNOWN_FIELD + " (did you mean \"" + known + "\"?)");
      p.skipChildren();
      return;
    }
    if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
      metrics.add(p, t, idx, name, "", run);
      return;
    }
    run.error(idx, path("", name), MSG_UNKNOWN_FIELD);
    p.skipChildren();
  }

  /** A known field name that differs only in case, or null. */
  static String caseMismatch(String name) {
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
}
