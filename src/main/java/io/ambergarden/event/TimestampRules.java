package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_REQUIRED;
import static io.ambergarden.event.EventParser.MSG_TS_INTEGER;
import static io.ambergarden.event.EventParser.MSG_TS_MICROS;
import static io.ambergarden.event.EventParser.MSG_TS_NUMERIC_STRING;
import static io.ambergarden.event.EventParser.MSG_TS_RANGE;
import static io.ambergarden.event.EventParser.MSG_TS_SECONDS;
import static io.ambergarden.event.EventParser.MSG_TS_TYPE;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The ts field: epoch millis as a JSON integer or ISO-8601 text with an offset, inside the window
 * [now - retention, now + future skew] of the run. A number just outside the window that fits it
 * once scaled gets an epoch seconds or microseconds hint.
 */
final class TimestampRules {

  private final String msgTooOld;
  private final String msgTooNew;

  TimestampRules(EventLimits limits) {
    this.msgTooOld = "is older than the retention of " + duration(limits.retentionMillis());
    this.msgTooNew =
        "is too far in the future (more than "
            + duration(limits.futureSkewMillis())
            + " ahead of server time)";
  }

  /** On success stores the value in {@code run.tsValue} and returns true. */
  boolean read(JsonParser p, JsonToken t, int idx, ParseRun run) throws IOException {
    switch (t) {
      case VALUE_NULL:
        run.error(idx, "ts", MSG_REQUIRED);
        return false;
      case VALUE_NUMBER_INT:
        {
          if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            run.error(idx, "ts", MSG_TS_RANGE);
            return false;
          }
          return checkWindow(p.getLongValue(), true, idx, run);
        }
      case VALUE_NUMBER_FLOAT:
        run.error(idx, "ts", MSG_TS_INTEGER);
        return false;
      case VALUE_STRING:
        {
          String s = p.getText();
          if (TimestampParser.isDecimalInteger(s)) {
            run.error(idx, "ts", MSG_TS_NUMERIC_STRING);
            return false;
          }
          TimestampParser.Result r = TimestampParser.parseIso(s);
          if (!r.ok()) {
            run.error(idx, "ts", r.error());
            return false;
          }
          return checkWindow(r.millis(), false, idx, run);
        }
      default:
        run.error(idx, "ts", MSG_TS_TYPE);
        p.skipChildren();
        return false;
    }
  }

  /** An epoch-millis value read from another encoding (Avro): the same window and hints. */
  boolean check(long v, int idx, ParseRun run) {
    return checkWindow(v, true, idx, run);
  }

  private boolean checkWindow(long v, boolean numeric, int idx, ParseRun run) {
    if (v < run.minTs) {
      if (numeric
          && v >= -Math.floorDiv(-run.minTs, 1000L)
          && v <= Math.floorDiv(run.maxTs, 1000L)) {
        run.error(idx, "ts", MSG_TS_SECONDS);
      } else {
        run.error(idx, "ts", msgTooOld);
      }
      return false;
    }
    if (v > run.maxTs) {
      long div = v / 1000L;
      if (numeric && div >= run.minTs && div <= run.maxTs) {
        run.error(idx, "ts", MSG_TS_MICROS);
      } else {
        run.error(idx, "ts", msgTooNew);
      }
      return false;
    }
    run.tsValue = v;
    return true;
  }

  /** A whole number of the largest fitting unit: "180 days", "5 minutes", else milliseconds. */
  static String duration(long ms) {
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
}
