package io.ambergarden.chaos.check;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every group of checks reads: the inputs, the distinct stored events and each device's sent
 * events, and the helpers that turn a tally into a verdict. Package-private; see {@link
 * StateChecker}.
 */
abstract class Checks {
  /** A (device, hour) pair. */
  record DeviceHour(String deviceId, long hour) {}

  final AckLedger ledger;
  final State state;
  final WritePath writes;
  final StateChecker.AbnormalRule abnormalRule;
  final ChaosFindings f;

  /** The distinct stored events (events_by_device) by id. */
  final Map<String, State.Row> stored = new HashMap<>();

  final Map<String, Integer> rowsPerEvent = new HashMap<>();
  final Map<String, List<ChaosEvent>> sentByDevice = new TreeMap<>();

  Checks(
      AckLedger ledger,
      State state,
      WritePath writes,
      StateChecker.AbnormalRule rule,
      ChaosFindings f) {
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

  /** Examples kept per invariant. */
  static final int EXAMPLES = 5;

  /** A count and a few examples. */
  static final class Tally {
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

  void verdict(String name, Tally t, String of) {
    f.check(name, t.text(of), t.n == 0);
  }

  /** exactThrough per device (Long.MIN_VALUE when none is known to be exact). */
  long deviceExactThrough(String deviceId) {
    State.DeviceCounters c = state.api().counters().get(deviceId);
    return c == null || c.exactThrough() == null ? Long.MIN_VALUE : c.exactThrough();
  }

  Map<LocalDate, State.DayStats> days() {
    Map<LocalDate, State.DayStats> out = new TreeMap<>();
    state.api().days().forEach(d -> out.put(LocalDate.parse(d.day()), d));
    return out;
  }

  long dayExactThrough(Map<LocalDate, State.DayStats> days, long hour) {
    State.DayStats d = days.get(StateChecker.dayOf(hour));
    return d == null ? Long.MIN_VALUE : d.exactThrough();
  }
}
