package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;

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

  static boolean holds(ChaosFindings f, String name) {
    return f.invariants().stream()
        .filter(i -> i.name().equals(name))
        .findFirst()
        .orElseThrow()
        .holds();
  }

  @Test
  void aLedgerThatFilledFailsTheRun() {
    AckLedger l = new AckLedger(List.of("d0"), BASE, 2, 1);
    ChaosFindings roomy = new ChaosFindings();
    l.next();
    roomy.ledger(l);
    assertThat(roomy.allHold()).isTrue();

    l.next();
    assertThat(l.next()).isNull();
    ChaosFindings full = new ChaosFindings();
    full.ledger(l);
    assertThat(holds(full, "ledger filled before the workload ended")).isFalse();
  }

  @Test
  void aCheckerThatCrashedFailsTheRunAndSaysWhy() {
    ChaosFindings f = new ChaosFindings();
    f.crashed(new IllegalStateException("GET /api/v1/stats/status answered 503"));
    assertThat(f.allHold()).isFalse();
    assertThat(f.invariants().get(0).observed()).contains("answered 503");
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
