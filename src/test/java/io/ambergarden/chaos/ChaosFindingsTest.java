package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChaosFindingsTest {
  static final long BASE = 1_700_000_000_000L / ChaosFindings.HOUR * ChaosFindings.HOUR;

  /** Six events over two devices, all sent once; the first four acknowledged. */
  static AckLedger ledger() {
    AckLedger l = new AckLedger(List.of("d0", "d1"), BASE, 100, 1);
    for (int i = 0; i < 6; i++) {
      ChaosEvent e = l.next();
      l.sent(List.of(e), false);
      if (i < 4) {
        l.acked(List.of(e), 0);
      }
    }
    return l;
  }

  static Map<String, Integer> rows(int... perEvent) {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < perEvent.length; i++) {
      if (perEvent[i] > 0) {
        m.put("c" + i, perEvent[i]);
      }
    }
    return m;
  }

  static boolean holds(ChaosFindings f, String name) {
    return f.invariants().stream()
        .filter(i -> i.name().equals(name))
        .findFirst()
        .orElseThrow()
        .holds();
  }

  @Test
  void everyAcknowledgedEventStoredOnceHolds() {
    ChaosFindings f = new ChaosFindings();
    f.storedEvents(ledger(), rows(1, 1, 1, 1, 1, 0));
    assertThat(f.allHold()).isTrue();
    assertThat(f.figures()).containsEntry("attempted, not acknowledged, stored", 1L);
  }

  @Test
  void aMissingAcknowledgedEventADuplicateRowAndAnUnknownRowEachFail() {
    ChaosFindings f = new ChaosFindings();
    Map<String, Integer> r = rows(1, 0, 2, 1, 0, 0);
    r.put("never-sent", 1);
    f.storedEvents(ledger(), r);
    assertThat(holds(f, "acknowledged events missing")).isFalse();
    assertThat(holds(f, "duplicate detail rows")).isFalse();
    assertThat(holds(f, "rows of events never sent")).isFalse();
  }

  @Test
  void latestMustBeTheNewestStoredEventAndNoOlderThanTheNewestAcknowledged() {
    AckLedger l = ledger(); // d0: c0 c2 c4, d1: c1 c3 c5; acked c0..c3
    ChaosFindings ok = new ChaosFindings();
    ok.latest(l, rows(1, 1, 1, 1, 1, 0), Map.of("d0", "c4", "d1", "c3"));
    assertThat(ok.allHold()).isTrue();
    assertThat(ok.figures()).containsEntry("devices whose latest is a newer attempted event", 1);

    ChaosFindings stale = new ChaosFindings();
    stale.latest(l, rows(1, 1, 1, 1, 1, 0), Map.of("d0", "c2", "d1", "c3"));
    assertThat(stale.allHold()).isFalse();
  }

  @Test
  void countersMayOvercountButNeverUndercount() {
    AckLedger l = ledger(); // d0 acked 2 of 3 sends, d1 acked 2 of 3
    ChaosFindings ok = new ChaosFindings();
    ok.counters(l, Map.of("d0", 2L, "d1", 5L), 4);
    assertThat(ok.allHold()).isTrue();
    assertThat(ok.figures())
        .containsEntry("device counters within [acknowledged, sends]", 1)
        .containsEntry(
            "device counters above sends (counted again after a crash or redelivery)", 1);

    ChaosFindings under = new ChaosFindings();
    under.counters(l, Map.of("d0", 1L, "d1", 2L), 3);
    assertThat(holds(under, "device counters below their acknowledged events")).isFalse();
    assertThat(holds(under, "status counters (all days) below the acknowledged events")).isFalse();
  }

  @Test
  void rollupsAreComputedFromStoredEventsOfClosedHoursOnly() {
    AckLedger l = ledger();
    Map<String, Map<Long, double[]>> closed =
        ChaosFindings.expectedRollups(l, rows(1, 1, 1, 1, 0, 0), BASE + ChaosFindings.HOUR);
    double[] d0 = closed.get("d0").get(BASE);
    assertThat(d0[0]).isEqualTo(2); // c0 and c2 stored, c4 not
    double t0 = l.event("c0").temperature();
    double t2 = l.event("c2").temperature();
    assertThat(d0[1]).isEqualTo(Math.min(t0, t2));
    assertThat(d0[2]).isEqualTo(Math.max(t0, t2));
    JsonObject served =
        new JsonObject()
            .put("count", 2)
            .put("min", d0[1])
            .put("max", d0[2])
            .put("avg", (t0 + t2) / 2);
    assertThat(ChaosFindings.rollupMatches(served, d0)).isTrue();
    assertThat(ChaosFindings.rollupMatches(served.copy().put("count", 3), d0)).isFalse();
    assertThat(ChaosFindings.rollupMatches(null, d0)).isFalse();
    // the hour is not closed yet: nothing to judge
    assertThat(ChaosFindings.expectedRollups(l, rows(1, 1, 1, 1, 0, 0), BASE + 1)).isEmpty();
  }

  @Test
  void deadLettersMustBeExactlyThePoisonAcknowledged() {
    AckLedger l = ledger();
    l.poisonSent("p1");
    l.poisonSent("p2");
    l.poisonAcked("p1");
    ChaosFindings ok = new ChaosFindings();
    ok.deadLetters(l, Set.of("p1"), 2, Map.of());
    assertThat(ok.allHold()).isTrue();
    assertThat(ok.figures()).containsEntry("poison dead letters written more than once", 1L);

    ChaosFindings lost = new ChaosFindings();
    lost.deadLetters(l, Set.of(), 0, Map.of("StoreRejected", 1));
    assertThat(lost.invariants()).noneMatch(ChaosFindings.Invariant::holds);
  }

  @Test
  void speculatedCounterUpdatesFail() {
    ChaosFindings f = new ChaosFindings();
    f.speculation(Map.of("read", 3.0, "write", 1.0, "counter", 0.0));
    assertThat(f.allHold()).isTrue();
    ChaosFindings bad = new ChaosFindings();
    bad.speculation(Map.of("counter", 1.0));
    assertThat(bad.allHold()).isFalse();
  }
}
