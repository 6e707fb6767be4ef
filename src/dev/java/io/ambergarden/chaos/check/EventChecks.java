package io.ambergarden.chaos.check;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The event tables, field by field against the events sent: events_by_device, events_by_type and
 * latest_by_device, and what the API serves of each.
 */
final class EventChecks extends Checks {
  EventChecks(
      AckLedger ledger,
      State state,
      WritePath writes,
      StateChecker.AbnormalRule rule,
      ChaosFindings f) {
    super(ledger, state, writes, rule, f);
  }

  // events_by_device: each acknowledged event stored, every row an event sent, field by field
  void detail() {
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
      } else if (!StateChecker.sameFields(r, StateChecker.expected(e))) {
        fields.add("stored " + r + ", sent " + StateChecker.expected(e));
      }
    }
    rowsPerEvent.forEach(
        (id, n) -> {
          if (n > 1) {
            duplicates.add(id + " x" + n);
          }
        });
    verdict(StateChecker.EVENTS_MISSING, missing, "");
    verdict(StateChecker.DETAIL_FIELDS, fields, " rows");
    verdict(StateChecker.DETAIL_UNKNOWN, unknown, " rows");
    verdict(StateChecker.DETAIL_DUPLICATES, duplicates, " events");
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
    verdict(StateChecker.API_EVENTS, served, " devices");
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
      if (!StateChecker.sameFields(e.getValue(), s)) {
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

  // events_by_type: every acknowledged event, each row's keys those of the event sent (the index
  // holds keys only; the API serves the event from events_by_device)
  void byType() {
    Map<String, State.Row> byId = new HashMap<>();
    Tally wrong = new Tally();
    for (State.Row r : state.eventsByType()) {
      byId.put(r.eventId(), r);
      ChaosEvent e = ledger.event(r.eventId());
      State.Row sent = e == null ? null : StateChecker.keysOf(StateChecker.expected(e));
      if (e == null || ledger.sends(r.eventId()) == 0) {
        wrong.add(r.eventId() + " never sent");
      } else if (!StateChecker.sameFields(StateChecker.keysOf(r), sent)) {
        wrong.add("stored " + r + ", sent " + sent);
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
    verdict(StateChecker.BY_TYPE_MISSING, missing, "");
    verdict(StateChecker.BY_TYPE_WRONG, wrong, " rows");
    f.figure("unacknowledged events stored by device but not by type", storedWithoutTypeRow);

    Tally served = new Tally();
    Map<String, List<State.Row>> table = group(indexedEvents(), State.Row::deviceType);
    Set<String> types = new HashSet<>(table.keySet());
    types.addAll(state.api().byType().keySet());
    for (String t : types) {
      String diff = sameRows(table.getOrDefault(t, List.of()), state.api().byType().get(t));
      if (diff != null) {
        served.add(t + ": " + diff);
      }
    }
    verdict(StateChecker.API_BY_TYPE, served, " types");
  }

  /**
   * What the by-type read serves: each index row's event as events_by_device holds it, under the
   * index row's type; an index row without a detail row is skipped, as the reader skips it.
   */
  private List<State.Row> indexedEvents() {
    Map<String, State.Row> detail = new HashMap<>();
    state.eventsByDevice().forEach(r -> detail.put(r.eventId(), r));
    List<State.Row> out = new ArrayList<>();
    for (State.Row k : state.eventsByType()) {
      State.Row d = detail.get(k.eventId());
      if (d != null) {
        out.add(
            new State.Row(
                d.deviceId(),
                d.ts(),
                d.eventId(),
                k.deviceType(),
                d.status(),
                d.code(),
                d.metrics(),
                d.tags(),
                d.payload()));
      }
    }
    return out;
  }

  // latest_by_device: an event sent, no older than the newest acknowledged one. Older than an
  // unacknowledged stored event is possible (a request whose detail row landed, its state not)
  void latest() {
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
      if (e == null
          || ledger.sends(e.eventId()) == 0
          || !StateChecker.sameFields(got, StateChecker.expected(e))) {
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
    verdict(StateChecker.LATEST, wrong, "");
    f.figure(
        "devices whose latest is a newer attempted event than their stored ones", newerThanStored);
    f.figure("devices whose latest is older than an unacknowledged stored event", olderThanStored);

    Tally served = new Tally();
    Set<String> devices = new HashSet<>(state.latest().keySet());
    devices.addAll(state.api().latest().keySet());
    for (String d : devices) {
      State.Row table = state.latest().get(d);
      State.Row api = state.api().latest().get(d);
      if (table == null || api == null ? table != api : !StateChecker.sameFields(table, api)) {
        served.add(d + ": table " + table + ", served " + api);
      }
    }
    verdict(StateChecker.API_LATEST, served, " devices");
  }
}
