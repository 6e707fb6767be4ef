package io.ambergarden.chaos.check;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import io.ambergarden.counter.CounterCells;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongPredicate;

/**
 * The counters' bounds (device counters and day stats by code, status and type): exact for the
 * reconciled hours, between the acknowledged events (once the journal counted them) and the sends
 * for the others; and the write path's duplicates against the faults' bound.
 */
final class CounterBounds extends Checks {
  CounterBounds(
      AckLedger ledger,
      State state,
      WritePath writes,
      StateChecker.AbnormalRule rule,
      ChaosFindings f) {
    super(ledger, state, writes, rule, f);
  }

  /**
   * [lower, upper] of a count over {@code events}: exact (the distinct stored events) for the hours
   * {@code exact} accepts; for the others at least the acknowledged ones once {@code counted}, at
   * most the sends plus the faults' allowance: the write path's duplicates, and the events in
   * updates of {@code cells} cells whose outcome was unknown (a resend may count them twice).
   */
  private long[] bounds(
      Collection<ChaosEvent> events, LongPredicate exact, boolean counted, String cells) {
    long exactCount = 0;
    long acked = 0;
    long sends = 0;
    boolean open = false;
    for (ChaosEvent e : events) {
      if (exact.test(StateChecker.hourOf(e.ts()))) {
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
    long upper =
        open
            ? exactCount + sends + writes.duplicateBound() + writes.unknownOutcomeAllowance(cells)
            : exactCount;
    return new long[] {lower, upper};
  }

  private static String range(long[] b) {
    return "[" + b[0] + ", " + b[1] + "]";
  }

  private boolean counted(Long countedThrough) {
    return countedThrough != null && countedThrough >= state.settledAt();
  }

  // device counters: total and per status, against the bounds of their exact and open hours
  void counters() {
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
      LongPredicate exact = h -> h + StateChecker.HOUR <= exactThrough;
      boolean counted = counted(c.countedThrough());
      boolean allExact =
          d.getValue().stream().allMatch(e -> exact.test(StateChecker.hourOf(e.ts())));
      if (allExact) {
        exactDevices++;
      } else {
        openDevices++;
      }
      long[] total = bounds(d.getValue(), exact, counted, CounterCells.DEVICE);
      if (c.total() < total[0] || c.total() > total[1]) {
        wrong.add(d.getKey() + " total " + c.total() + " not in " + range(total));
      }
      Map<String, List<ChaosEvent>> byStatus = new TreeMap<>();
      d.getValue()
          .forEach(e -> byStatus.computeIfAbsent(e.status(), k -> new ArrayList<>()).add(e));
      Set<String> statuses = new HashSet<>(byStatus.keySet());
      statuses.addAll(c.byStatus().keySet());
      for (String s : statuses) {
        long[] b = bounds(byStatus.getOrDefault(s, List.of()), exact, counted, CounterCells.DEVICE);
        long got = c.byStatus().getOrDefault(s, 0L);
        if (got < b[0] || got > b[1]) {
          wrong.add(d.getKey() + " " + s + " " + got + " not in " + range(b));
        }
      }
    }
    verdict(StateChecker.DEVICE_COUNTERS, wrong, " devices");
    f.figure("devices whose every hour was exact when read", exactDevices);
    f.figure("devices with hours not yet exact when read", openDevices);
  }

  // day stats per dimension, against the bounds of the day's exact and open hours
  void dayStats() {
    Map<LocalDate, List<ChaosEvent>> byDay = new TreeMap<>();
    sentByDevice
        .values()
        .forEach(
            l ->
                l.forEach(
                    e ->
                        byDay
                            .computeIfAbsent(StateChecker.dayOf(e.ts()), k -> new ArrayList<>())
                            .add(e)));
    Map<LocalDate, State.DayStats> days = days();
    Tally wrong = new Tally();
    for (var d : byDay.entrySet()) {
      State.DayStats s = days.get(d.getKey());
      if (s == null) {
        wrong.add(d.getKey() + ": not served");
        continue;
      }
      LongPredicate exact = h -> h + StateChecker.HOUR <= s.exactThrough();
      boolean counted = counted(s.countedThrough());
      judgeDimension(
          wrong,
          d.getKey() + " total",
          Map.of("", d.getValue()),
          Map.of("", s.total()),
          exact,
          counted,
          CounterCells.ALL);
      judgeDimension(
          wrong,
          d.getKey() + " code",
          groupEvents(d.getValue(), e -> Integer.toString(e.code())),
          s.byCode(),
          exact,
          counted,
          CounterCells.CODE);
      judgeDimension(
          wrong,
          d.getKey() + " status",
          groupEvents(d.getValue(), ChaosEvent::status),
          s.byStatus(),
          exact,
          counted,
          CounterCells.STATUS);
      judgeDimension(
          wrong,
          d.getKey() + " type",
          groupEvents(d.getValue(), ChaosEvent::deviceType),
          s.byType(),
          exact,
          counted,
          CounterCells.TYPE);
    }
    verdict(StateChecker.DAY_STATS, wrong, "");
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
      boolean counted,
      String cells) {
    Set<String> values = new HashSet<>(events.keySet());
    values.addAll(served.keySet());
    for (String v : values) {
      long[] b = bounds(events.getOrDefault(v, List.of()), exact, counted, cells);
      long got = served.getOrDefault(v, 0L);
      if (got < b[0] || got > b[1]) {
        wrong.add(what + (v.isEmpty() ? "" : " " + v) + " " + got + " not in " + range(b));
      }
    }
  }

  // duplicates from the write path: events the instances wrote against what the clients sent
  void writePath() {
    long excess = writes.journalEvents() - ledger.sendCount();
    long bound = writes.duplicateBound();
    f.check(
        StateChecker.WRITE_DUPLICATES,
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
        "counter updates of unknown outcome (timeouts; their events widen the open hours' upper"
            + " bound)",
        writes.counterUnknownOutcomes());
    f.figure(
        "events in counter updates of unknown outcome, by cells", writes.unknownOutcomeEvents());
  }
}
