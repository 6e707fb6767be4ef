package io.ambergarden.chaos.check;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import io.vertx.core.json.Json;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongPredicate;

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
      "events_by_type rows that differ from the event sent, or of events never sent";
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

  private static final int EXAMPLES = 5;

  private final AckLedger ledger;
  private final State state;
  private final WritePath writes;
  private final AbnormalRule abnormalRule;
  private final ChaosFindings f;

  /** The distinct stored events (events_by_device) by id. */
  private final Map<String, State.Row> stored = new HashMap<>();

  private final Map<String, Integer> rowsPerEvent = new HashMap<>();
  private final Map<String, List<ChaosEvent>> sentByDevice = new TreeMap<>();

  private StateChecker(
      AckLedger ledger, State state, WritePath writes, AbnormalRule rule, ChaosFindings f) {
    this.ledger = ledger;
    this.state = state;
    this.writes = writes;
    this.abnormalRule = rule;
    this.f = f;
    for (State.Row r : state.eventsByDevice()) {
      stored.putIfAbsent(r.eventId(), r);
      rowsPerEvent.merge(r.eventId(), 1, Integer::sum);
    }
    for (var d : ledger.byDevice().entrySet()) {
      List<ChaosEvent> sent =
          d.getValue().stream().filter(e -> ledger.sends(e.eventId()) > 0).toList();
      if (!sent.isEmpty()) {
        sentByDevice.put(d.getKey(), sent);
      }
    }
  }

  /** Adds every verdict to {@code f}. */
  public static void check(
      ChaosFindings f, AckLedger ledger, State state, WritePath writes, AbnormalRule rule) {
    StateChecker c = new StateChecker(ledger, state, writes, rule, f);
    c.detail();
    c.byType();
    c.latest();
    c.abnormal();
    c.fleet();
    c.devicesByHour();
    c.reconciliation();
    c.rollups();
    c.exactCounts();
    c.counters();
    c.dayStats();
    c.writePath();
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

  /** A count and a few examples. */
  private static final class Tally {
    long n;
    final List<String> examples = new ArrayList<>();

    void add(String example) {
      n++;
      if (examples.size() < EXAMPLES) {
        examples.add(example);
      }
    }

    String text(String of) {
      return n + of + (examples.isEmpty() ? "" : " e.g. " + examples);
    }
  }

  private void verdict(String name, Tally t, String of) {
    f.check(name, t.text(of), t.n == 0);
  }

  // events_by_device: each acknowledged event stored, every row an event sent, field by field
  private void detail() {
    Tally missing = new Tally();
    Tally fields = new Tally();
    Tally unknown = new Tally();
    Tally duplicates = new Tally();
    long unackedStored = 0;
    for (ChaosEvent e : ledger.events()) {
      boolean isStored = stored.containsKey(e.eventId());
      if (ledger.isAcked(e.eventId()) && !isStored) {
        missing.add(e.eventId() + " of " + e.deviceId());
      }
      if (!ledger.isAcked(e.eventId()) && isStored) {
        unackedStored++;
      }
    }
    for (State.Row r : state.eventsByDevice()) {
      ChaosEvent e = ledger.event(r.eventId());
      if (e == null || ledger.sends(r.eventId()) == 0) {
        unknown.add(r.eventId() + " of " + r.deviceId());
      } else if (!sameFields(r, expected(e))) {
        fields.add("stored " + r + ", sent " + expected(e));
      }
    }
    rowsPerEvent.forEach(
        (id, n) -> {
          if (n > 1) {
            duplicates.add(id + " x" + n);
          }
        });
    verdict(EVENTS_MISSING, missing, "");
    verdict(DETAIL_FIELDS, fields, " rows");
    verdict(DETAIL_UNKNOWN, unknown, " rows");
    verdict(DETAIL_DUPLICATES, duplicates, " events");
    f.figure("events acknowledged", ledger.ackedCount());
    f.figure("events attempted (sent at least once)", ledger.sentCount());
    f.figure("sends (including retries and duplicates on purpose)", ledger.sendCount());
    f.figure("events sent again on purpose", ledger.duplicatesSent());
    f.figure("distinct events stored", stored.size());
    f.figure("attempted, not acknowledged, stored", unackedStored);

    Tally served = new Tally();
    Map<String, List<State.Row>> rowsByDevice = group(state.eventsByDevice(), State.Row::deviceId);
    Set<String> devices = new HashSet<>(rowsByDevice.keySet());
    devices.addAll(state.api().events().keySet());
    for (String d : devices) {
      String diff = sameRows(rowsByDevice.getOrDefault(d, List.of()), state.api().events().get(d));
      if (diff != null) {
        served.add(d + ": " + diff);
      }
    }
    verdict(API_EVENTS, served, " devices");
  }

  /** Null when both hold the same events with the same fields, else what differs. */
  private static String sameRows(List<State.Row> table, List<State.Row> served) {
    if (served == null) {
      return "not served";
    }
    Map<String, State.Row> a = new HashMap<>();
    table.forEach(r -> a.put(r.eventId(), r));
    Map<String, State.Row> b = new HashMap<>();
    for (State.Row r : served) {
      if (b.put(r.eventId(), r) != null) {
        return "served " + r.eventId() + " twice";
      }
    }
    for (var e : a.entrySet()) {
      State.Row s = b.get(e.getKey());
      if (s == null) {
        return e.getKey() + " in the table, not served";
      }
      if (!sameFields(e.getValue(), s)) {
        return "table " + e.getValue() + ", served " + s;
      }
    }
    for (String id : b.keySet()) {
      if (!a.containsKey(id)) {
        return id + " served, not in the table";
      }
    }
    return null;
  }

  private static <T> Map<String, List<T>> group(Collection<T> rows, Function<T, String> key) {
    Map<String, List<T>> out = new HashMap<>();
    rows.forEach(r -> out.computeIfAbsent(key.apply(r), k -> new ArrayList<>()).add(r));
    return out;
  }

  // events_by_type: every acknowledged event, each row equal to the event sent
  private void byType() {
    Map<String, State.Row> byId = new HashMap<>();
    Tally wrong = new Tally();
    for (State.Row r : state.eventsByType()) {
      byId.put(r.eventId(), r);
      ChaosEvent e = ledger.event(r.eventId());
      if (e == null || ledger.sends(r.eventId()) == 0) {
        wrong.add(r.eventId() + " never sent");
      } else if (!sameFields(r, expected(e))) {
        wrong.add("stored " + r + ", sent " + expected(e));
      }
    }
    Tally missing = new Tally();
    long storedWithoutTypeRow = 0;
    for (ChaosEvent e : ledger.events()) {
      if (!byId.containsKey(e.eventId())) {
        if (ledger.isAcked(e.eventId())) {
          missing.add(e.eventId() + " of " + e.deviceType());
        } else if (stored.containsKey(e.eventId())) {
          storedWithoutTypeRow++;
        }
      }
    }
    verdict(BY_TYPE_MISSING, missing, "");
    verdict(BY_TYPE_WRONG, wrong, " rows");
    f.figure("unacknowledged events stored by device but not by type", storedWithoutTypeRow);

    Tally served = new Tally();
    Map<String, List<State.Row>> table = group(state.eventsByType(), State.Row::deviceType);
    Set<String> types = new HashSet<>(table.keySet());
    types.addAll(state.api().byType().keySet());
    for (String t : types) {
      String diff = sameRows(table.getOrDefault(t, List.of()), state.api().byType().get(t));
      if (diff != null) {
        served.add(t + ": " + diff);
      }
    }
    verdict(API_BY_TYPE, served, " types");
  }

  // latest_by_device: an event sent, no older than the newest acknowledged one. Older than an
  // unacknowledged stored event is possible (a request whose detail row landed, its state not)
  private void latest() {
    Tally wrong = new Tally();
    int newerThanStored = 0;
    int olderThanStored = 0;
    for (var d : sentByDevice.entrySet()) {
      long newestStored = Long.MIN_VALUE;
      long newestAcked = Long.MIN_VALUE;
      for (ChaosEvent e : d.getValue()) {
        if (stored.containsKey(e.eventId())) {
          newestStored = Math.max(newestStored, e.ts());
        }
        if (ledger.isAcked(e.eventId())) {
          newestAcked = Math.max(newestAcked, e.ts());
        }
      }
      State.Row got = state.latest().get(d.getKey());
      if (got == null) {
        if (newestStored != Long.MIN_VALUE || newestAcked != Long.MIN_VALUE) {
          wrong.add(d.getKey() + ": none");
        }
        continue;
      }
      ChaosEvent e = ledger.event(got.eventId());
      if (e == null || ledger.sends(e.eventId()) == 0 || !sameFields(got, expected(e))) {
        wrong.add(d.getKey() + ": " + got + " is no event sent");
      } else if (got.ts() < newestAcked) {
        wrong.add(d.getKey() + ": " + got.eventId() + " at " + got.ts() + " < " + newestAcked);
      } else if (got.ts() > newestStored) {
        newerThanStored++; // an attempt that wrote its state, not its detail row
      } else if (got.ts() < newestStored) {
        olderThanStored++;
      }
    }
    for (String d : state.latest().keySet()) {
      if (!sentByDevice.containsKey(d)) {
        wrong.add(d + ": a device never sent");
      }
    }
    verdict(LATEST, wrong, "");
    f.figure(
        "devices whose latest is a newer attempted event than their stored ones", newerThanStored);
    f.figure("devices whose latest is older than an unacknowledged stored event", olderThanStored);

    Tally served = new Tally();
    Set<String> devices = new HashSet<>(state.latest().keySet());
    devices.addAll(state.api().latest().keySet());
    for (String d : devices) {
      State.Row table = state.latest().get(d);
      State.Row api = state.api().latest().get(d);
      if (table == null || api == null ? table != api : !sameFields(table, api)) {
        served.add(d + ": table " + table + ", served " + api);
      }
    }
    verdict(API_LATEST, served, " devices");
  }

  private record AbnormalKey(long hour, int code, String deviceId) {}

  // abnormal_devices_by_hour: one row per (hour, code, device) of an abnormal event, newest last_ts
  private void abnormal() {
    Map<AbnormalKey, List<ChaosEvent>> sent = new HashMap<>();
    for (List<ChaosEvent> events : sentByDevice.values()) {
      for (ChaosEvent e : events) {
        if (abnormalRule.test(e.code(), e.status())) {
          sent.computeIfAbsent(
                  new AbnormalKey(hourOf(e.ts()), e.code(), e.deviceId()), k -> new ArrayList<>())
              .add(e);
        }
      }
    }
    Map<AbnormalKey, State.AbnormalRow> rows = new HashMap<>();
    Tally wrong = new Tally();
    for (State.AbnormalRow r : state.abnormal()) {
      AbnormalKey k = new AbnormalKey(r.hour(), r.code(), r.deviceId());
      rows.put(k, r);
      List<ChaosEvent> events = sent.get(k);
      ChaosEvent match =
          events == null
              ? null
              : events.stream().filter(e -> e.ts() == r.lastTs()).findFirst().orElse(null);
      if (match == null || !Objects.equals(match.status(), r.status())) {
        wrong.add(r + " matches no abnormal event sent");
      }
    }
    for (var s : sent.entrySet()) {
      long newestAcked =
          s.getValue().stream()
              .filter(e -> ledger.isAcked(e.eventId()))
              .mapToLong(ChaosEvent::ts)
              .max()
              .orElse(Long.MIN_VALUE);
      if (newestAcked == Long.MIN_VALUE) {
        continue;
      }
      State.AbnormalRow r = rows.get(s.getKey());
      if (r == null) {
        wrong.add(s.getKey() + " missing");
      } else if (r.lastTs() < newestAcked) {
        wrong.add(r + " older than the acknowledged " + newestAcked);
      }
    }
    verdict(ABNORMAL, wrong, "");
  }

  // fleet_index has every facet of each device's state; the fleet view serves exactly that state
  private void fleet() {
    Set<String> pointers = new HashSet<>();
    state.fleet().forEach(r -> pointers.add(r.facet() + "\u0000" + r.deviceId()));
    Tally missing = new Tally();
    int expectedPointers = 0;
    for (State.Row l : state.latest().values()) {
      for (String facet :
          FleetFacets.of(l.deviceType(), l.status(), abnormalRule.test(l.code(), l.status()))) {
        expectedPointers++;
        if (!pointers.contains(facet + "\u0000" + l.deviceId())) {
          missing.add(facet.replace('\n', '/') + " of " + l.deviceId());
        }
      }
    }
    verdict(FLEET_INDEX, missing, " pointers");
    f.figure(
        "fleet_index pointers of facets a device left (stale, verified on read)",
        Math.max(0, state.fleet().size() - (expectedPointers - missing.n)));

    Tally served = new Tally();
    Map<String, State.FleetItem> items = new HashMap<>();
    for (State.FleetItem i : state.api().fleet()) {
      if (items.put(i.deviceId(), i) != null) {
        served.add(i.deviceId() + " listed twice");
      }
    }
    for (State.Row l : state.latest().values()) {
      State.FleetItem i = items.remove(l.deviceId());
      State.FleetItem want =
          new State.FleetItem(
              l.deviceId(),
              l.deviceType(),
              l.ts(),
              l.status(),
              l.code(),
              l.metrics(),
              abnormalRule.test(l.code(), l.status()));
      if (!want.equals(i)) {
        served.add("served " + i + ", state " + want);
      }
    }
    items.keySet().forEach(d -> served.add(d + " listed without a state"));
    verdict(FLEET_API, served, " devices");
  }

  private record DeviceHour(String deviceId, long hour) {}

  // devices_by_hour: a row per (device, hour) of an acknowledged event, last_ts within refresh
  private void devicesByHour() {
    Map<DeviceHour, long[]> sent = new HashMap<>(); // {newest sent, newest acked}
    for (List<ChaosEvent> events : sentByDevice.values()) {
      for (ChaosEvent e : events) {
        long[] a =
            sent.computeIfAbsent(
                new DeviceHour(e.deviceId(), hourOf(e.ts())),
                k -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
        a[0] = Math.max(a[0], e.ts());
        if (ledger.isAcked(e.eventId())) {
          a[1] = Math.max(a[1], e.ts());
        }
      }
    }
    Tally wrong = new Tally();
    Map<DeviceHour, State.HourRow> rows = new HashMap<>();
    for (State.HourRow r : state.devicesByHour()) {
      DeviceHour k = new DeviceHour(r.deviceId(), r.hour());
      rows.put(k, r);
      long[] a = sent.get(k);
      if (a == null || r.lastTs() > a[0] || hourOf(r.lastTs()) != r.hour()) {
        wrong.add(r + " newer than any event sent in its hour");
      }
    }
    for (var s : sent.entrySet()) {
      long newestAcked = s.getValue()[1];
      if (newestAcked == Long.MIN_VALUE) {
        continue;
      }
      State.HourRow r = rows.get(s.getKey());
      if (r == null) {
        wrong.add(s.getKey() + " missing");
      } else if (r.lastTs() < newestAcked - ACTIVITY_REFRESH_MS) {
        wrong.add(r + " more than the refresh behind " + newestAcked);
      }
    }
    verdict(DEVICES_BY_HOUR, wrong, "");
  }

  /** exactThrough per device (Long.MIN_VALUE when none is known to be exact). */
  private long deviceExactThrough(String deviceId) {
    State.DeviceCounters c = state.api().counters().get(deviceId);
    return c == null || c.exactThrough() == null ? Long.MIN_VALUE : c.exactThrough();
  }

  private Map<LocalDate, State.DayStats> days() {
    Map<LocalDate, State.DayStats> out = new TreeMap<>();
    state.api().days().forEach(d -> out.put(LocalDate.parse(d.day()), d));
    return out;
  }

  private long dayExactThrough(Map<LocalDate, State.DayStats> days, long hour) {
    State.DayStats d = days.get(dayOf(hour));
    return d == null ? Long.MIN_VALUE : d.exactThrough();
  }

  // every hour that ended before reconciledBefore must be exact, per device and in the day stats
  private void reconciliation() {
    Tally late = new Tally();
    Map<LocalDate, State.DayStats> days = days();
    Set<Long> hours = new HashSet<>();
    for (var d : sentByDevice.entrySet()) {
      long exactThrough = deviceExactThrough(d.getKey());
      Set<Long> devHours = new HashSet<>();
      for (ChaosEvent e : d.getValue()) {
        if (stored.containsKey(e.eventId())) {
          devHours.add(hourOf(e.ts()));
        }
      }
      for (long h : devHours) {
        if (h + HOUR <= state.reconciledBefore() && h + HOUR > exactThrough) {
          late.add(
              d.getKey() + " " + Instant.ofEpochMilli(h) + " (exactThrough " + exactThrough + ")");
        }
      }
      hours.addAll(devHours);
    }
    for (long h : hours) {
      if (h + HOUR <= state.reconciledBefore() && h + HOUR > dayExactThrough(days, h)) {
        late.add("day stats " + Instant.ofEpochMilli(h));
      }
    }
    verdict(UNRECONCILED, late, "");
  }

  /** {count, min, max, sum} of temperature over the distinct stored events of a device's hour. */
  private Map<Long, double[]> storedAggregates(String deviceId) {
    Map<Long, double[]> out = new TreeMap<>();
    for (ChaosEvent e : sentByDevice.getOrDefault(deviceId, List.of())) {
      State.Row r = stored.get(e.eventId());
      Double t = r == null ? null : r.metrics().get("temperature");
      if (t == null) {
        continue;
      }
      double[] a =
          out.computeIfAbsent(
              hourOf(e.ts()), k -> new double[] {0, Double.MAX_VALUE, -Double.MAX_VALUE, 0});
      a[0]++;
      a[1] = Math.min(a[1], t);
      a[2] = Math.max(a[2], t);
      a[3] += t;
    }
    return out;
  }

  private static boolean close(double a, double b) {
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  }

  // rollups_by_device of reconciled hours from the stored events; the API serves the table
  private void rollups() {
    Map<DeviceHour, State.RollupRow> rows = new HashMap<>();
    state.rollups().stream()
        .filter(r -> r.metric().equals("temperature"))
        .forEach(r -> rows.put(new DeviceHour(r.deviceId(), r.hour()), r));
    Tally wrong = new Tally();
    int judged = 0;
    for (String d : sentByDevice.keySet()) {
      long exactThrough = deviceExactThrough(d);
      Map<Long, double[]> want = storedAggregates(d);
      for (var h : want.entrySet()) {
        if (h.getKey() + HOUR > exactThrough) {
          continue;
        }
        judged++;
        double[] e = h.getValue();
        State.RollupRow r = rows.get(new DeviceHour(d, h.getKey()));
        if (r == null
            || r.count() != (long) e[0]
            || r.min() != e[1]
            || r.max() != e[2]
            || !close(r.sum(), e[3])) {
          wrong.add(
              d
                  + " "
                  + Instant.ofEpochMilli(h.getKey())
                  + ": "
                  + r
                  + ", expected count "
                  + (long) e[0]
                  + " min "
                  + e[1]
                  + " max "
                  + e[2]
                  + " sum "
                  + e[3]);
        }
      }
      for (var r : rows.entrySet()) {
        DeviceHour k = r.getKey();
        if (k.deviceId().equals(d)
            && k.hour() + HOUR <= exactThrough
            && !want.containsKey(k.hour())) {
          wrong.add(r.getValue() + " of an hour without stored events");
        }
      }
    }
    f.check(ROLLUPS, wrong.text(" of " + judged + " hours"), wrong.n == 0);

    Tally served = new Tally();
    Set<DeviceHour> seen = new HashSet<>();
    for (State.ServedRollup s : state.api().rollups()) {
      DeviceHour k = new DeviceHour(s.deviceId(), s.hour());
      seen.add(k);
      State.RollupRow r = rows.get(k);
      if (r == null
          || r.count() != s.count()
          || r.min() != s.min()
          || r.max() != s.max()
          || !close(s.avg(), r.sum() / r.count())) {
        served.add("served " + s + ", table " + r);
      }
    }
    for (DeviceHour k : rows.keySet()) {
      if (sentByDevice.containsKey(k.deviceId()) && !seen.contains(k)) {
        served.add(k + " in the table, not served");
      }
    }
    verdict(API_ROLLUPS, served, "");
  }

  private static String statusName(String status) {
    return status == null ? "none" : "status:" + status;
  }

  private record ExactKey(String deviceId, long hour, String name) {}

  private record DimKey(long hour, String dimension, String value) {}

  // the exact rows of reconciled hours hold the distinct stored events, per device and per
  // dimension
  private void exactCounts() {
    Map<ExactKey, Long> want = new HashMap<>();
    Map<DimKey, Long> wantDim = new HashMap<>();
    for (State.Row r : stored.values()) {
      long h = hourOf(r.ts());
      want.merge(new ExactKey(r.deviceId(), h, statusName(r.status())), 1L, Long::sum);
      wantDim.merge(new DimKey(h, "all", ""), 1L, Long::sum);
      if (r.code() != null) {
        wantDim.merge(new DimKey(h, "code", Integer.toString(r.code())), 1L, Long::sum);
      }
      if (r.status() != null) {
        wantDim.merge(new DimKey(h, "status", r.status()), 1L, Long::sum);
      }
      if (r.deviceType() != null) {
        wantDim.merge(new DimKey(h, "type", r.deviceType()), 1L, Long::sum);
      }
    }
    Map<ExactKey, Long> got = new HashMap<>();
    state
        .deviceExact()
        .forEach(
            r -> got.merge(new ExactKey(r.deviceId(), r.hour(), r.name()), r.events(), Long::sum));
    Tally wrong = new Tally();
    Set<ExactKey> keys = new HashSet<>(want.keySet());
    keys.addAll(got.keySet());
    for (ExactKey k : keys) {
      if (k.hour() + HOUR > deviceExactThrough(k.deviceId())) {
        continue;
      }
      long w = want.getOrDefault(k, 0L);
      long g = got.getOrDefault(k, 0L);
      if (w != g) {
        wrong.add(k + ": " + g + ", stored " + w);
      }
    }
    verdict(EXACT_DEVICE, wrong, "");

    Map<LocalDate, State.DayStats> days = days();
    Map<DimKey, Long> gotDim = new HashMap<>();
    state
        .statusExact()
        .forEach(
            r ->
                gotDim.merge(
                    new DimKey(r.hour(), r.dimension(), r.value()), r.events(), Long::sum));
    Tally wrongDim = new Tally();
    Set<DimKey> dimKeys = new HashSet<>(wantDim.keySet());
    dimKeys.addAll(gotDim.keySet());
    for (DimKey k : dimKeys) {
      if (k.hour() + HOUR > dayExactThrough(days, k.hour())) {
        continue;
      }
      long w = wantDim.getOrDefault(k, 0L);
      long g = gotDim.getOrDefault(k, 0L);
      if (w != g) {
        wrongDim.add(k + ": " + g + ", stored " + w);
      }
    }
    verdict(EXACT_STATUS, wrongDim, "");
  }

  /**
   * [lower, upper] of a count over {@code events}: exact (the distinct stored events) for the hours
   * {@code exact} accepts; for the others at least the acknowledged ones once {@code counted}, at
   * most the sends plus the faults' allowance ({@code Long.MAX_VALUE} when not judged).
   */
  private long[] bounds(Collection<ChaosEvent> events, LongPredicate exact, boolean counted) {
    long exactCount = 0;
    long acked = 0;
    long sends = 0;
    boolean open = false;
    for (ChaosEvent e : events) {
      if (exact.test(hourOf(e.ts()))) {
        if (stored.containsKey(e.eventId())) {
          exactCount++;
        }
      } else {
        open = true;
        sends += ledger.sends(e.eventId());
        if (ledger.isAcked(e.eventId())) {
          acked++;
        }
      }
    }
    long lower = exactCount + (counted ? acked : 0);
    long upper;
    if (!open) {
      upper = exactCount;
    } else if (writes.counterUnknownOutcomes() > 0) {
      upper = Long.MAX_VALUE;
    } else {
      upper = exactCount + sends + writes.duplicateBound();
    }
    return new long[] {lower, upper};
  }

  private static String range(long[] b) {
    return "[" + b[0] + ", " + (b[1] == Long.MAX_VALUE ? "not judged" : Long.toString(b[1])) + "]";
  }

  private boolean counted(Long countedThrough) {
    return countedThrough != null && countedThrough >= state.settledAt();
  }

  // device counters: total and per status, against the bounds of their exact and open hours
  private void counters() {
    Tally wrong = new Tally();
    int exactDevices = 0;
    int openDevices = 0;
    for (var d : sentByDevice.entrySet()) {
      State.DeviceCounters c = state.api().counters().get(d.getKey());
      if (c == null) {
        wrong.add(d.getKey() + ": not served");
        continue;
      }
      long exactThrough = c.exactThrough() == null ? Long.MIN_VALUE : c.exactThrough();
      LongPredicate exact = h -> h + HOUR <= exactThrough;
      boolean counted = counted(c.countedThrough());
      boolean allExact = d.getValue().stream().allMatch(e -> exact.test(hourOf(e.ts())));
      if (allExact) {
        exactDevices++;
      } else {
        openDevices++;
      }
      long[] total = bounds(d.getValue(), exact, counted);
      if (c.total() < total[0] || c.total() > total[1]) {
        wrong.add(d.getKey() + " total " + c.total() + " not in " + range(total));
      }
      Map<String, List<ChaosEvent>> byStatus = new TreeMap<>();
      d.getValue()
          .forEach(e -> byStatus.computeIfAbsent(e.status(), k -> new ArrayList<>()).add(e));
      Set<String> statuses = new HashSet<>(byStatus.keySet());
      statuses.addAll(c.byStatus().keySet());
      for (String s : statuses) {
        long[] b = bounds(byStatus.getOrDefault(s, List.of()), exact, counted);
        long got = c.byStatus().getOrDefault(s, 0L);
        if (got < b[0] || got > b[1]) {
          wrong.add(d.getKey() + " " + s + " " + got + " not in " + range(b));
        }
      }
    }
    verdict(DEVICE_COUNTERS, wrong, " devices");
    f.figure("devices whose every hour was exact when read", exactDevices);
    f.figure("devices with hours not yet exact when read", openDevices);
  }

  // day stats per dimension, against the bounds of the day's exact and open hours
  private void dayStats() {
    Map<LocalDate, List<ChaosEvent>> byDay = new TreeMap<>();
    sentByDevice
        .values()
        .forEach(
            l ->
                l.forEach(
                    e -> byDay.computeIfAbsent(dayOf(e.ts()), k -> new ArrayList<>()).add(e)));
    Map<LocalDate, State.DayStats> days = days();
    Tally wrong = new Tally();
    for (var d : byDay.entrySet()) {
      State.DayStats s = days.get(d.getKey());
      if (s == null) {
        wrong.add(d.getKey() + ": not served");
        continue;
      }
      LongPredicate exact = h -> h + HOUR <= s.exactThrough();
      boolean counted = counted(s.countedThrough());
      judgeDimension(
          wrong,
          d.getKey() + " total",
          Map.of("", d.getValue()),
          Map.of("", s.total()),
          exact,
          counted);
      judgeDimension(
          wrong,
          d.getKey() + " code",
          groupEvents(d.getValue(), e -> Integer.toString(e.code())),
          s.byCode(),
          exact,
          counted);
      judgeDimension(
          wrong,
          d.getKey() + " status",
          groupEvents(d.getValue(), ChaosEvent::status),
          s.byStatus(),
          exact,
          counted);
      judgeDimension(
          wrong,
          d.getKey() + " type",
          groupEvents(d.getValue(), ChaosEvent::deviceType),
          s.byType(),
          exact,
          counted);
    }
    verdict(DAY_STATS, wrong, "");
  }

  private static Map<String, List<ChaosEvent>> groupEvents(
      List<ChaosEvent> events, Function<ChaosEvent, String> key) {
    Map<String, List<ChaosEvent>> out = new TreeMap<>();
    events.forEach(e -> out.computeIfAbsent(key.apply(e), k -> new ArrayList<>()).add(e));
    return out;
  }

  private void judgeDimension(
      Tally wrong,
      String what,
      Map<String, List<ChaosEvent>> events,
      Map<String, Long> served,
      LongPredicate exact,
      boolean counted) {
    Set<String> values = new HashSet<>(events.keySet());
    values.addAll(served.keySet());
    for (String v : values) {
      long[] b = bounds(events.getOrDefault(v, List.of()), exact, counted);
      long got = served.getOrDefault(v, 0L);
      if (got < b[0] || got > b[1]) {
        wrong.add(what + (v.isEmpty() ? "" : " " + v) + " " + got + " not in " + range(b));
      }
    }
  }

  // duplicates from the write path: events the instances wrote against what the clients sent
  private void writePath() {
    long excess = writes.journalEvents() - ledger.sendCount();
    long bound = writes.duplicateBound();
    f.check(
        WRITE_DUPLICATES,
        writes.journalEvents()
            + " events written (amber_counter_journal_events_total), "
            + ledger.sendCount()
            + " sent: "
            + excess
            + " beyond the sends, bound "
            + bound
            + " from "
            + writes.disruptions().size()
            + " crashes or rebalances and "
            + writes.inFlightRecords()
            + " in flight",
        excess <= bound);
    f.figure(
        "counter statements of unknown outcome (open-hour upper bound not judged when > 0)",
        writes.counterUnknownOutcomes());
  }
}
