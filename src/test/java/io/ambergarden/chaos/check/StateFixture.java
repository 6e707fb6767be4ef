package io.ambergarden.chaos.check;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consistent recorded run, built by hand: a ledger of 40 events over three devices and two hours
 * (one sent twice, the last sent but never acknowledged nor stored), and the state a correct
 * product would hold once both hours are reconciled. Fields are mutable so a test can plant one
 * anomaly at a time.
 */
final class StateFixture {
  /** 10:00 UTC, so both hours lie in one day. */
  static final long H0 = 1_700_000_000_000L / 86_400_000L * 86_400_000L + 10 * StateChecker.HOUR;

  static final StateChecker.AbnormalRule RULE = StateChecker.AbnormalRule.DEFAULT;

  final AckLedger ledger;
  final List<ChaosEvent> events = new ArrayList<>();
  final List<ChaosEvent> storedEvents = new ArrayList<>();
  List<State.Row> byDevice = new ArrayList<>();
  List<State.Row> byType = new ArrayList<>();
  Map<String, State.Row> latest = new TreeMap<>();
  List<State.AbnormalRow> abnormal = new ArrayList<>();
  List<State.FleetRow> fleet = new ArrayList<>();
  List<State.HourRow> devicesByHour = new ArrayList<>();
  List<State.RollupRow> rollups = new ArrayList<>();
  List<State.ExactRow> deviceExact = new ArrayList<>();
  List<State.DimensionRow> statusExact = new ArrayList<>();
  Map<String, List<State.Row>> apiEvents = new TreeMap<>();
  Map<String, State.Row> apiLatest = new TreeMap<>();
  Map<String, State.DeviceCounters> apiCounters = new TreeMap<>();
  List<State.DayStats> apiDays = new ArrayList<>();
  List<State.ServedRollup> apiRollups = new ArrayList<>();
  List<State.FleetItem> apiFleet = new ArrayList<>();
  Map<String, List<State.Row>> apiByType = new TreeMap<>();
  Map<String, List<String>> apiFleetFiltered = new TreeMap<>();
  long settledAt = H0 + 3 * StateChecker.HOUR;
  long reconciledBefore = H0 + 2 * StateChecker.HOUR;
  WritePath writes;

  StateFixture() {
    // the first half of the events in hour H0, the rest in the next hour
    ledger =
        new AckLedger(
            List.of("d0", "d1", "d2"), H0 + StateChecker.HOUR - 20 * AckLedger.TS_STEP_MS, 100, 7);
    for (int i = 0; i < 40; i++) {
      ChaosEvent e = ledger.next();
      events.add(e);
      ledger.sent(List.of(e), false);
      if (i < 39) {
        ledger.acked(List.of(e), H0 + 2 * StateChecker.HOUR);
        storedEvents.add(e);
      }
    }
    ledger.sent(List.of(events.get(2)), true); // sent again on purpose, stored once
    writes = new WritePath(ledger.sendCount(), List.of(), 0, 0, Map.of());
    build();
  }

  private void build() {
    Map<String, ChaosEvent> newest = new TreeMap<>();
    Map<List<Object>, ChaosEvent> abnormalNewest = new HashMap<>();
    Map<List<Object>, Long> hourNewest = new HashMap<>();
    Map<List<Object>, double[]> aggregates =
        new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    Map<List<Object>, Long> exact = new HashMap<>();
    Map<List<Object>, Long> dims = new HashMap<>();
    Map<String, Long> total = new TreeMap<>();
    Map<String, Map<String, Long>> byStatus = new TreeMap<>();
    Map<String, Long> dayCode = new TreeMap<>();
    Map<String, Long> dayStatus = new TreeMap<>();
    Map<String, Long> dayType = new TreeMap<>();
    for (ChaosEvent e : storedEvents) {
      State.Row r = StateChecker.expected(e);
      byDevice.add(r);
      byType.add(StateChecker.keysOf(r));
      apiEvents.computeIfAbsent(e.deviceId(), k -> new ArrayList<>()).add(r);
      apiByType.computeIfAbsent(e.deviceType(), k -> new ArrayList<>()).add(r);
      newest.merge(e.deviceId(), e, (a, b) -> a.ts() >= b.ts() ? a : b);
      long hour = StateChecker.hourOf(e.ts());
      if (RULE.test(e.code(), e.status())) {
        abnormalNewest.merge(
            List.of(hour, e.code(), e.deviceId()), e, (a, b) -> a.ts() >= b.ts() ? a : b);
      }
      hourNewest.merge(List.of(e.deviceId(), hour), e.ts(), Math::max);
      double[] a =
          aggregates.computeIfAbsent(
              List.of(e.deviceId(), hour),
              k -> new double[] {0, Double.MAX_VALUE, -Double.MAX_VALUE, 0});
      a[0]++;
      a[1] = Math.min(a[1], e.temperature());
      a[2] = Math.max(a[2], e.temperature());
      a[3] += e.temperature();
      exact.merge(List.of(e.deviceId(), hour, "status:" + e.status()), 1L, Long::sum);
      dims.merge(List.of(hour, "all", ""), 1L, Long::sum);
      dims.merge(List.of(hour, "code", Integer.toString(e.code())), 1L, Long::sum);
      dims.merge(List.of(hour, "status", e.status()), 1L, Long::sum);
      dims.merge(List.of(hour, "type", e.deviceType()), 1L, Long::sum);
      total.merge(e.deviceId(), 1L, Long::sum);
      byStatus.computeIfAbsent(e.deviceId(), k -> new TreeMap<>()).merge(e.status(), 1L, Long::sum);
      dayCode.merge(Integer.toString(e.code()), 1L, Long::sum);
      dayStatus.merge(e.status(), 1L, Long::sum);
      dayType.merge(e.deviceType(), 1L, Long::sum);
    }
    for (ChaosEvent e : newest.values()) {
      State.Row r = StateChecker.expected(e);
      latest.put(e.deviceId(), r);
      apiLatest.put(e.deviceId(), r);
      boolean abn = RULE.test(e.code(), e.status());
      FleetFacets.of(e.deviceType(), e.status(), abn)
          .forEach(f -> fleet.add(new State.FleetRow(f, e.deviceId(), e.ts())));
      apiFleet.add(
          new State.FleetItem(
              e.deviceId(), e.deviceType(), e.ts(), e.status(), e.code(), e.metrics(), abn));
      for (String filter :
          List.of("type=" + e.deviceType(), "status=" + e.status(), "abnormal=" + abn)) {
        apiFleetFiltered.computeIfAbsent(filter, k -> new ArrayList<>()).add(e.deviceId());
      }
    }
    abnormalNewest.forEach(
        (k, e) ->
            abnormal.add(
                new State.AbnormalRow(
                    (Long) k.get(0), e.code(), e.deviceId(), e.ts(), e.status())));
    hourNewest.forEach(
        (k, ts) -> devicesByHour.add(new State.HourRow((Long) k.get(1), (String) k.get(0), ts)));
    aggregates.forEach(
        (k, a) -> {
          rollups.add(
              new State.RollupRow(
                  (String) k.get(0),
                  (Long) k.get(1),
                  "temperature",
                  (long) a[0],
                  a[1],
                  a[2],
                  a[3]));
          apiRollups.add(
              new State.ServedRollup(
                  (String) k.get(0), (Long) k.get(1), (long) a[0], a[1], a[2], a[3] / a[0]));
        });
    exact.forEach(
        (k, n) ->
            deviceExact.add(
                new State.ExactRow((String) k.get(0), (Long) k.get(1), (String) k.get(2), n)));
    dims.forEach(
        (k, n) ->
            statusExact.add(
                new State.DimensionRow((Long) k.get(0), (String) k.get(1), (String) k.get(2), n)));
    long exactThrough = H0 + 2 * StateChecker.HOUR;
    total.forEach(
        (d, n) ->
            apiCounters.put(
                d, new State.DeviceCounters(n, byStatus.get(d), exactThrough, settledAt)));
    apiDays.add(
        new State.DayStats(
            StateChecker.dayOf(H0).toString(),
            storedEvents.size(),
            dayCode,
            dayStatus,
            dayType,
            exactThrough,
            settledAt));
  }

  State state() {
    return new State(
        byDevice,
        byType,
        latest,
        abnormal,
        fleet,
        devicesByHour,
        rollups,
        deviceExact,
        statusExact,
        new State.Api(
            apiEvents,
            apiLatest,
            apiCounters,
            apiDays,
            apiRollups,
            apiFleet,
            apiByType,
            apiFleetFiltered),
        settledAt,
        reconciledBefore);
  }

  /** An acknowledged, stored event of {@code device} that is not its newest. */
  ChaosEvent olderEventOf(String device) {
    return storedEvents.stream().filter(e -> e.deviceId().equals(device)).findFirst().orElseThrow();
  }

  ChaosEvent firstAbnormal() {
    return storedEvents.stream()
        .filter(e -> RULE.test(e.code(), e.status()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the fixture's seed must make an abnormal event"));
  }
}
