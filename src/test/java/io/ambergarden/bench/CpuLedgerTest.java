package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CpuLedgerTest {
  @Test
  void phaseDerivesCoresAndCpuPerThousandEvents() {
    CpuLedger.Phase phase = new CpuLedger.Phase("p", 2_000, 4.0, Map.of("a", 6.0, "b", 2.0));

    assertThat(phase.cores("a")).isEqualTo(1.5);
    assertThat(phase.millisPer1000Events("a")).isEqualTo(3_000.0);
    assertThat(phase.totalCores()).isEqualTo(2.0);
    assertThat(phase.cores("unknown")).isNaN();
    assertThat(new CpuLedger.Phase("q", 10, 2.0, Map.of("a", 3.0, "down", Double.NaN)).totalCores())
        .isEqualTo(1.5);
  }

  @Test
  void spanMeasuresThisJvmsCpuAndMarksAnUnknownProcessNaN() {
    CpuLedger ledger =
        new CpuLedger()
            .process("self", () -> Optional.of(ProcessHandle.current()))
            .process("gone", Optional::empty);
    CpuLedger.Span span = ledger.start("spin");
    // spins until this thread got 100 ms of CPU, however busy the machine is
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long until = threads.getCurrentThreadCpuTime() + 100_000_000L;
    double sink = 0;
    while (threads.getCurrentThreadCpuTime() < until) {
      sink += Math.sqrt(sink + 1);
    }

    CpuLedger.Phase phase = span.end(100);

    assertThat(sink).isPositive();
    assertThat(phase.cpuSeconds().get("self")).isGreaterThan(0.05);
    assertThat(phase.wallSeconds()).isGreaterThanOrEqualTo(0.1);
    assertThat(phase.cpuSeconds().get("gone")).isNaN();
    assertThat(ledger.phases()).containsExactly(phase);
    assertThat(ledger.processNames()).containsExactly("self", "gone");
  }

  @Test
  void spanDifferencesEachCounterAndLeavesOutOneUnreadableAtEitherEnd() {
    AtomicLong recomputes = new AtomicLong(40);
    AtomicBoolean up = new AtomicBoolean(false);
    CpuLedger ledger =
        new CpuLedger()
            .counter("recomputes", () -> OptionalLong.of(recomputes.get()))
            .counter("late", () -> up.get() ? OptionalLong.of(7) : OptionalLong.empty());
    CpuLedger.Span span = ledger.start("p");
    recomputes.addAndGet(25);
    up.set(true);

    CpuLedger.Phase phase = span.end(0);

    assertThat(phase.counts()).containsExactly(Map.entry("recomputes", 25L));
    assertThat(new CpuLedger.Phase("q", 1, 1.0, Map.of()).counts()).isEmpty();
  }

  @Test
  void awaitQuietReturnsAfterOneWindowForAnIdleProcessAndAtTheDeadlineForABusyOne()
      throws Exception {
    CpuLedger ledger = new CpuLedger().process("self", () -> Optional.of(ProcessHandle.current()));

    assertThat(
            ledger.awaitQuiet(
                "self", 1.0, java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(5)))
        .isLessThan(1.0);
    Thread spinner =
        new Thread(
            () -> {
              long until = System.nanoTime() + 1_500_000_000L;
              double x = 0;
              while (System.nanoTime() < until) {
                x += Math.sqrt(x + 1); // one busy core for 1.5 s
              }
              if (x < 0) {
                System.out.println(x);
              }
            });
    spinner.start();
    double waited =
        ledger.awaitQuiet(
            "self", 0.01, java.time.Duration.ofMillis(100), java.time.Duration.ofMillis(600));
    spinner.join();
    assertThat(waited).isGreaterThanOrEqualTo(0.6);
  }
}
