package io.ambergarden.chaos.check;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the reconciliation computes from the stored events: hours reconciled in time, their rollups
 * and exact counts.
 */
final class CountChecks extends Checks {
  CountChecks(
      AckLedger ledger,
      State state,
      WritePath writes,
      StateChecker.AbnormalRule rule,
      ChaosFindings f) {
    super(ledger, state, writes, rule, f);
  }

  // every hour that ended before reconciledBefore must be exact, per device and in the day stats
  void reconciliation() {
    Tally late = new Tally();
    Map<LocalDate, State.DayStats> days = days();
    Set<Long> hours = new HashSet<>();
    for (var d : sentByDevice.entrySet()) {
      long exactThrough = deviceExactThrough(d.getKey());
      Set<Long> devHours = new HashSet<>();
      for (ChaosEvent e : d.getValue()) {
        if (stored.containsKey(e.eventId())) {
          devHours.add(StateChecker.hourOf(e.ts()));
        }
      }
      for (long h : devHours) {
        if (h + StateChecker.HOUR <= state.reconciledBefore()
            && h + StateChecker.HOUR > exactThrough) {
          late.add(
              d.getKey() + " " + Instant.ofEpochMilli(h) + " (exactThrough " + exactThrough + ")");
        }
      }
      hours.addAll(devHours);
    }
    for (long h : hours) {
      if (h + StateChecker.HOUR <= state.reconciledBefore()
          && h + StateChecker.HOUR > dayExactThrough(days, h)) {
        late.add("day stats " + Instant.ofEpochMilli(h));
      }
    }
    verdict(StateChecker.UNRECONCILED, late, "");
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
              StateChecker.hourOf(e.ts()),
              k -> new double[] {0, Double.MAX_VALUE, -Double.MAX_VALUE, 0});
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
  void rollups() {
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
        if (h.getKey() + StateChecker.HOUR > exactThrough) {
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
            && k.hour() + StateChecker.HOUR <= exactThrough
            && !want.containsKey(k.hour())) {
          wrong.add(r.getValue() + " of an hour without stored events");
        }
      }
    }
    f.check(StateChecker.ROLLUPS, wrong.text(" of " + judged + " hours"), wrong.n == 0);

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
    verdict(StateChecker.API_ROLLUPS, served, "");
  }

  private static String statusName(String status) {
    return status == null ? "none" : "status:" + status;
  }

  private record ExactKey(String deviceId, long hour, String name) {}

  private record DimKey(long hour, String dimension, String value) {}

  // the exact rows of reconciled hours hold the distinct stored events, per device and per
  // dimension
  void exactCounts() {
    Map<ExactKey, Long> want = new HashMap<>();
    Map<DimKey, Long> wantDim = new HashMap<>();
    for (State.Row r : stored.values()) {
      long h = StateChecker.hourOf(r.ts());
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
      if (k.hour() + StateChecker.HOUR > deviceExactThrough(k.deviceId())) {
        continue;
      }
      long w = want.getOrDefault(k, 0L);
      long g = got.getOrDefault(k, 0L);
      if (w != g) {
        wrong.add(k + ": " + g + ", stored " + w);
      }
    }
    verdict(StateChecker.EXACT_DEVICE, wrong, "");

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
      if (k.hour() + StateChecker.HOUR > dayExactThrough(days, k.hour())) {
        continue;
      }
      long w = wantDim.getOrDefault(k, 0L);
      long g = gotDim.getOrDefault(k, 0L);
      if (w != g) {
        wrongDim.add(k + ": " + g + ", stored " + w);
      }
    }
    verdict(StateChecker.EXACT_STATUS, wrongDim, "");
  }
}
