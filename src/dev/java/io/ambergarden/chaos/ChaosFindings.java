package io.ambergarden.chaos;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checker's verdicts, from what the workload knows (the ledger) and what the public API served
 * back: no I/O here. Each invariant has a name, the observed figure and whether it holds.
 */
public final class ChaosFindings {
  public static final long HOUR = 3_600_000L;

  /** One checked property. */
  public record Invariant(String name, String observed, boolean holds) {}

  private final List<Invariant> invariants = new ArrayList<>();
  private final Map<String, Object> figures = new LinkedHashMap<>();

  public List<Invariant> invariants() {
    return List.copyOf(invariants);
  }

  /** Figures that are reported but not judged. */
  public Map<String, Object> figures() {
    return figures;
  }

  public boolean allHold() {
    return invariants.stream().allMatch(Invariant::holds);
  }

  void check(String name, String observed, boolean holds) {
    invariants.add(new Invariant(name, observed, holds));
  }

  void figure(String name, Object value) {
    figures.put(name, value);
  }

  /**
   * Acknowledged events missing, duplicate rows (an event id stored more than once) and rows of
   * events never sent, from the rows per event id read back.
   */
  public void storedEvents(AckLedger ledger, Map<String, Integer> rowsPerEvent) {
    List<String> missing = new ArrayList<>();
    long duplicates = 0;
    long unknown = 0;
    long unackedStored = 0;
    for (ChaosEvent e : ledger.events()) {
      int rows = rowsPerEvent.getOrDefault(e.eventId(), 0);
      if (ledger.isAcked(e.eventId()) && rows == 0) {
        missing.add(e.eventId());
      }
      if (!ledger.isAcked(e.eventId()) && rows > 0) {
        unackedStored++;
      }
    }
    for (var r : rowsPerEvent.entrySet()) {
      duplicates += Math.max(0, r.getValue() - 1);
      if (ledger.event(r.getKey()) == null || ledger.sends(r.getKey()) == 0) {
        unknown++;
      }
    }
    check(
        "acknowledged events missing",
        missing.size()
            + (missing.isEmpty()
                ? ""
                : " e.g. " + missing.subList(0, Math.min(10, missing.size()))),
        missing.isEmpty());
    check("duplicate detail rows", Long.toString(duplicates), duplicates == 0);
    check("rows of events never sent", Long.toString(unknown), unknown == 0);
    figure("events acknowledged", ledger.ackedCount());
    figure("events attempted (sent at least once)", ledger.sentCount());
    figure("sends (including retries and duplicates on purpose)", ledger.sendCount());
    figure("events sent again on purpose", ledger.duplicatesSent());
    figure("attempted, not acknowledged, stored", unackedStored);
  }

  /**
   * The latest event of each device is its newest stored event, and no older than its newest
   * acknowledged one (a newer attempted event may have been stored without its acknowledgement).
   */
  public void latest(
      AckLedger ledger, Map<String, Integer> rowsPerEvent, Map<String, String> latestByDevice) {
    int wrong = 0;
    int newerThanAcked = 0;
    List<String> examples = new ArrayList<>();
    for (var d : ledger.byDevice().entrySet()) {
      ChaosEvent newestStored = null;
      ChaosEvent newestAcked = null;
      for (ChaosEvent e : d.getValue()) {
        if (rowsPerEvent.getOrDefault(e.eventId(), 0) > 0) {
          newestStored = e;
        }
        if (ledger.isAcked(e.eventId())) {
          newestAcked = e;
        }
      }
      String got = latestByDevice.get(d.getKey());
      String want = newestStored == null ? null : newestStored.eventId();
      boolean ok =
          java.util.Objects.equals(got, want)
              && (newestAcked == null || newestStored.ts() >= newestAcked.ts());
      if (!ok) {
        wrong++;
        if (examples.size() < 5) {
          examples.add(d.getKey() + ": latest " + got + ", newest stored " + want);
        }
      } else if (newestAcked != null && newestStored != newestAcked) {
        newerThanAcked++;
      }
    }
    check(
        "devices whose latest is not the newest acknowledged (or a newer stored) event",
        wrong + (examples.isEmpty() ? "" : " " + examples),
        wrong == 0);
    figure("devices whose latest is a newer attempted event", newerThanAcked);
  }

  /**
   * Each device counter against its acknowledged events (a lower bound: never undercount) and its
   * sends (above them only after a crash or redelivery, which the README allows).
   */
  public void counters(AckLedger ledger, Map<String, Long> counterByDevice, long dayTotal) {
    int below = 0;
    int within = 0;
    int above = 0;
    long ackedAll = 0;
    long sendsAll = 0;
    List<String> examples = new ArrayList<>();
    for (var d : ledger.byDevice().entrySet()) {
      long acked = d.getValue().stream().filter(e -> ledger.isAcked(e.eventId())).count();
      long sends = d.getValue().stream().mapToLong(e -> ledger.sends(e.eventId())).sum();
      ackedAll += acked;
      sendsAll += sends;
      long counter = counterByDevice.getOrDefault(d.getKey(), 0L);
      if (counter < acked) {
        below++;
        if (examples.size() < 5) {
          examples.add(d.getKey() + " " + counter + " < " + acked);
        }
      } else if (counter <= sends) {
        within++;
      } else {
        above++;
      }
    }
    check(
        "device counters below their acknowledged events",
        below + (examples.isEmpty() ? "" : " " + examples),
        below == 0);
    check(
        "status counters (all days) below the acknowledged events",
        dayTotal + " counted, " + ackedAll + " acknowledged, " + sendsAll + " sends",
        dayTotal >= ackedAll);
    figure("device counters within [acknowledged, sends]", within);
    figure("device counters above sends (counted again after a crash or redelivery)", above);
  }

  /** Expected hourly rollups (count, min, max, sum of temperature) of the stored events. */
  public static Map<String, Map<Long, double[]>> expectedRollups(
      AckLedger ledger, Map<String, Integer> rowsPerEvent, long closedBefore) {
    Map<String, Map<Long, double[]>> out = new TreeMap<>();
    for (ChaosEvent e : ledger.events()) {
      long hour = Math.floorDiv(e.ts(), HOUR) * HOUR;
      if (rowsPerEvent.getOrDefault(e.eventId(), 0) == 0 || hour + HOUR > closedBefore) {
        continue;
      }
      double[] a =
          out.computeIfAbsent(e.deviceId(), k -> new TreeMap<>())
              .computeIfAbsent(hour, k -> new double[] {0, Double.MAX_VALUE, -Double.MAX_VALUE, 0});
      a[0]++;
      a[1] = Math.min(a[1], e.temperature());
      a[2] = Math.max(a[2], e.temperature());
      a[3] += e.temperature();
    }
    return out;
  }

  /** True when the served metrics equal the expected {count, min, max, sum}. */
  public static boolean rollupMatches(JsonObject temperature, double[] expected) {
    return temperature != null
        && temperature.getLong("count") == (long) expected[0]
        && temperature.getDouble("min") == expected[1]
        && temperature.getDouble("max") == expected[2]
        && Math.abs(temperature.getDouble("avg") - expected[3] / expected[0])
            <= 1e-9 * Math.max(1, Math.abs(expected[3] / expected[0]));
  }

  public void rollups(int hoursChecked, List<String> notEqual, long convergedMillis) {
    check(
        "closed hours whose rollup differs from the stored events",
        notEqual.size()
            + " of "
            + hoursChecked
            + (notEqual.isEmpty()
                ? ""
                : " e.g. " + notEqual.subList(0, Math.min(5, notEqual.size()))),
        notEqual.isEmpty() && hoursChecked > 0);
    figure("rollups equal after the workload stopped, ms", convergedMillis);
  }

  /** Dead letters against the poison sent: each acknowledged poison record, and nothing else. */
  public void deadLetters(
      AckLedger ledger,
      Set<String> poisonDeadLettered,
      long poisonDeadRecords,
      Map<String, Integer> otherByClass) {
    Set<String> acked = ledger.poisonAcked();
    Set<String> sent = ledger.poisonSent();
    long missing = acked.stream().filter(id -> !poisonDeadLettered.contains(id)).count();
    long unknown = poisonDeadLettered.stream().filter(id -> !sent.contains(id)).count();
    int other = otherByClass.values().stream().mapToInt(Integer::intValue).sum();
    check(
        "dead letters equal to the poison sent",
        poisonDeadLettered.size()
            + " distinct poison records dead-lettered; "
            + acked.size()
            + " acknowledged by the broker, "
            + sent.size()
            + " sent; "
            + missing
            + " missing, "
            + unknown
            + " unknown",
        missing == 0 && unknown == 0);
    check("dead letters of valid events", other + " " + otherByClass, other == 0);
    figure(
        "poison dead letters written more than once",
        poisonDeadRecords - poisonDeadLettered.size());
  }

  public void speculation(Map<String, Double> byKind) {
    Map<String, Double> sorted = new TreeMap<>(byKind);
    figure("speculative executions by statement kind", sorted);
    double counters = byKind.getOrDefault("counter", 0.0);
    check("speculative executions of counter updates", Double.toString(counters), counters == 0);
  }

  public void lag(long drainedMillis) {
    check(
        "consumer lag back to 0 after the workload (ms)",
        Long.toString(drainedMillis),
        drainedMillis >= 0);
  }

  public void recoveries(List<Nemesis.Outcome> outcomes) {
    long failed = outcomes.stream().filter(o -> o.recoveredAt() < 0 || o.error() != null).count();
    check(
        "faults not recovered within the deadline (or not injected)",
        failed + " of " + outcomes.size(),
        failed == 0 && !outcomes.isEmpty());
    Map<String, Integer> kinds = new HashMap<>();
    outcomes.forEach(o -> kinds.merge(o.fault().kind().name(), 1, Integer::sum));
    figure("faults by kind", new TreeMap<>(kinds));
  }
}
