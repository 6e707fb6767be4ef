package io.ambergarden.chaos.check;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** The derived index tables: abnormal devices per hour, the fleet index and view, activity. */
final class IndexChecks extends Checks {
  IndexChecks(
      AckLedger ledger,
      State state,
      WritePath writes,
      StateChecker.AbnormalRule rule,
      ChaosFindings f) {
    super(ledger, state, writes, rule, f);
  }

  private record AbnormalKey(long hour, int code, String deviceId) {}

  // abnormal_devices_by_hour: one row per (hour, code, device) of an abnormal event, newest last_ts
  void abnormal() {
    Map<AbnormalKey, List<ChaosEvent>> sent = new HashMap<>();
    for (List<ChaosEvent> events : sentByDevice.values()) {
      for (ChaosEvent e : events) {
        if (abnormalRule.test(e.code(), e.status())) {
          sent.computeIfAbsent(
                  new AbnormalKey(StateChecker.hourOf(e.ts()), e.code(), e.deviceId()),
                  k -> new ArrayList<>())
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
    verdict(StateChecker.ABNORMAL, wrong, "");
  }

  // fleet_index has every facet of each device's state; the fleet view serves exactly that state
  void fleet() {
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
    verdict(StateChecker.FLEET_INDEX, missing, " pointers");
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
    verdict(StateChecker.FLEET_API, served, " devices");
  }

  // a filtered fleet view lists exactly the devices whose state matches: a lost pointer hides one
  void filteredFleet() {
    Tally wrong = new Tally();
    for (var v : state.api().fleetFiltered().entrySet()) {
      String[] filter = v.getKey().split("=", 2);
      Set<String> want = new TreeSet<>();
      for (State.Row l : state.latest().values()) {
        boolean matches =
            switch (filter[0]) {
              case "type" -> filter[1].equals(l.deviceType());
              case "status" -> filter[1].equals(l.status());
              case "abnormal" ->
                  Boolean.parseBoolean(filter[1]) == abnormalRule.test(l.code(), l.status());
              default -> throw new IllegalArgumentException("unknown fleet filter " + v.getKey());
            };
        if (matches) {
          want.add(l.deviceId());
        }
      }
      Set<String> got = new TreeSet<>(v.getValue());
      if (got.size() != v.getValue().size()) {
        wrong.add(v.getKey() + ": a device listed twice");
      }
      Set<String> missing = new TreeSet<>(want);
      missing.removeAll(got);
      Set<String> extra = new TreeSet<>(got);
      extra.removeAll(want);
      if (!missing.isEmpty() || !extra.isEmpty()) {
        wrong.add(v.getKey() + ": missing " + missing + ", not matching " + extra);
      }
    }
    verdict(StateChecker.FLEET_FILTERED, wrong, " filters");
  }

  // devices_by_hour: a row per (device, hour) of an acknowledged event, last_ts within refresh
  void devicesByHour() {
    Map<DeviceHour, long[]> sent = new HashMap<>(); // {newest sent, newest acked}
    for (List<ChaosEvent> events : sentByDevice.values()) {
      for (ChaosEvent e : events) {
        long[] a =
            sent.computeIfAbsent(
                new DeviceHour(e.deviceId(), StateChecker.hourOf(e.ts())),
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
      if (a == null || r.lastTs() > a[0] || StateChecker.hourOf(r.lastTs()) != r.hour()) {
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
      } else if (r.lastTs() < newestAcked - StateChecker.ACTIVITY_REFRESH_MS) {
        wrong.add(r + " more than the refresh behind " + newestAcked);
      }
    }
    verdict(StateChecker.DEVICES_BY_HOUR, wrong, "");
  }
}
