package io.ambergarden.chaos.check;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import io.vertx.core.json.Json;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The checker's judgement of a read-back {@link State} against what the workload sent and had
 * acknowledged (the {@link AckLedger}) and what the instances report about their writes ({@link
 * WritePath}). No I/O: every verdict is a function of its inputs, so a test can plant each anomaly
 * in a consistent state and watch the right invariant fail. Nothing read back is trusted to judge
 * itself: expectations come from the ledger, and each derived table is compared, field by field,
 * with the detail rows read at ALL.
 */
public final class StateChecker {
  public static final long HOUR = 3_600_000L;

  public static final String EVENTS_MISSING = "acknowledged events missing";
  public static final String DETAIL_FIELDS = "detail rows whose fields differ from the event sent";
  public static final String DETAIL_UNKNOWN = "rows of events never sent";
  public static final String DETAIL_DUPLICATES = "events with more than one detail row";
  public static final String BY_TYPE_MISSING = "acknowledged events missing from events_by_type";
  public static final String BY_TYPE_WRONG =
      "events_by_type rows whose keys differ from the event sent, or of events never sent";
  public static final String LATEST =
      "devices whose latest_by_device is older than their newest acknowledged event, or differs"
          + " from the event sent";
  public static final String API_EVENTS =
      "devices whose served events differ from events_by_device";
  public static final String API_LATEST =
      "devices whose served latest differs from latest_by_device";
  public static final String API_BY_TYPE = "types whose served events differ from events_by_type";
  public static final String ABNORMAL = "abnormal_devices_by_hour rows missing or wrong";
  public static final String FLEET_INDEX = "fleet_index pointers missing for a device's state";
  public static final String FLEET_API = "fleet view items that differ from latest_by_device";
  public static final String FLEET_FILTERED =
      "filtered fleet views (by type, status, abnormal) that differ from latest_by_device";
  public static final String DEVICES_BY_HOUR = "devices_by_hour rows missing or wrong";
  public static final String UNRECONCILED = "closed hours not reconciled in time";
  public static final String ROLLUPS =
      "reconciled hours whose rollup differs from the stored events";
  public static final String API_ROLLUPS = "served rollups that differ from rollups_by_device";
  public static final String EXACT_DEVICE =
      "device_exact_counts of reconciled hours that differ from the distinct stored events";
  public static final String EXACT_STATUS =
      "status_exact_by_hour of reconciled hours that differ from the distinct stored events";
  public static final String DEVICE_COUNTERS =
      "device counters outside [exact + acknowledged once counted, exact + sends]";
  public static final String DAY_STATS =
      "day stats (total, per code, status, type) outside [exact + acknowledged once counted, exact +"
          + " sends]";
  public static final String WRITE_DUPLICATES =
      "events written beyond the sends and the faults' bound (write-path duplicates)";

  /** How the product tells abnormal events ({@code event.abnormal.*}). */
  public record AbnormalRule(int minCode, Set<String> statuses) {
    public static final AbnormalRule DEFAULT =
        new AbnormalRule(500, Set.of("fault", "error", "alarm"));

    public boolean test(Integer code, String status) {
      return (code != null && code >= minCode)
          || (status != null && statuses.contains(status.toLowerCase(Locale.ROOT)));
    }
  }

  /** devices_by_hour's last_ts is refreshed at most this often, in event time. */
  static final long ACTIVITY_REFRESH_MS = 5 * 60_000L;

  /** Adds every verdict to {@code f}. */
  public static void check(
      ChaosFindings f, AckLedger ledger, State state, WritePath writes, AbnormalRule rule) {
    EventChecks events = new EventChecks(ledger, state, writes, rule, f);
    events.detail();
    events.byType();
    events.latest();
    IndexChecks indexes = new IndexChecks(ledger, state, writes, rule, f);
    indexes.abnormal();
    indexes.fleet();
    indexes.filteredFleet();
    indexes.devicesByHour();
    CountChecks counts = new CountChecks(ledger, state, writes, rule, f);
    counts.reconciliation();
    counts.rollups();
    counts.exactCounts();
    CounterBounds bounds = new CounterBounds(ledger, state, writes, rule, f);
    bounds.counters();
    bounds.dayStats();
    bounds.writePath();
  }

  /** The event as the product should store it. */
  public static State.Row expected(ChaosEvent e) {
    return new State.Row(
        e.deviceId(),
        e.ts(),
        e.eventId(),
        e.deviceType(),
        e.status(),
        e.code(),
        e.metrics(),
        e.tags(),
        e.payload().encode());
  }

  /**
   * The keys events_by_type holds (a slim index since schema 7): only these fields, the rest null.
   */
  public static State.Row keysOf(State.Row r) {
    return new State.Row(
        r.deviceId(), r.ts(), r.eventId(), r.deviceType(), null, null, null, null, null);
  }

  /** Every field equal; payloads compared as JSON values. */
  public static boolean sameFields(State.Row a, State.Row b) {
    return a.deviceId().equals(b.deviceId())
        && a.ts() == b.ts()
        && a.eventId().equals(b.eventId())
        && Objects.equals(a.deviceType(), b.deviceType())
        && Objects.equals(a.status(), b.status())
        && Objects.equals(a.code(), b.code())
        && a.metrics().equals(b.metrics())
        && a.tags().equals(b.tags())
        && samePayload(a.payload(), b.payload());
  }

  private static boolean samePayload(String a, String b) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    try {
      return Objects.equals(Json.decodeValue(a), Json.decodeValue(b));
    } catch (RuntimeException notJson) {
      return a.equals(b);
    }
  }

  static long hourOf(long ts) {
    return Math.floorDiv(ts, HOUR) * HOUR;
  }

  static LocalDate dayOf(long ts) {
    return Instant.ofEpochMilli(ts).atOffset(ZoneOffset.UTC).toLocalDate();
  }
}
