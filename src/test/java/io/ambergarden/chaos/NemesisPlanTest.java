package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.chaos.NemesisPlan.Fault;
import io.ambergarden.chaos.NemesisPlan.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NemesisPlanTest {
  @Test
  void theSameSeedDrawsTheSameScheduleAndAnotherSeedAnother() {
    List<Fault> a = NemesisPlan.draw(42, Duration.ofMinutes(10), 3, 3);
    assertThat(NemesisPlan.draw(42, Duration.ofMinutes(10), 3, 3)).isEqualTo(a);
    assertThat(NemesisPlan.draw(43, Duration.ofMinutes(10), 3, 3)).isNotEqualTo(a);
  }

  @Test
  void everyKindComesOnceBeforeAnyRepeats() {
    for (long seed = 0; seed < 50; seed++) {
      List<Fault> plan = NemesisPlan.draw(seed, Duration.ofMinutes(10), 3, 3);
      Set<Kind> first =
          plan.subList(0, Kind.values().length).stream()
              .map(Fault::kind)
              .collect(Collectors.toSet());
      assertThat(first).containsExactlyInAnyOrder(Kind.values());
    }
  }

  @Test
  void targetsHoldsAndGapsStayInTheirRanges() {
    List<Fault> plan = NemesisPlan.draw(7, Duration.ofHours(2), 3, 2);
    for (Fault f : plan) {
      assertThat(f.gapBefore()).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(25));
      switch (f.kind()) {
        case KILL_NODE -> {
          assertThat(f.target()).isBetween(1, 3);
          assertThat(f.hold()).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(30));
        }
        case PAUSE_NODE -> {
          assertThat(f.target()).isBetween(1, 3);
          assertThat(f.hold()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
        }
        case RESTART_BROKER -> assertThat(f.target()).isZero();
        case KILL_INSTANCE, TERM_INSTANCE -> assertThat(f.target()).isBetween(0, 1);
      }
    }
    assertThat(plan.stream().map(Fault::index).toList())
        .isEqualTo(java.util.stream.IntStream.rangeClosed(1, plan.size()).boxed().toList());
  }

  @Test
  void thePlanFillsTheRunEvenIfEveryRecoveryWereInstant() {
    List<Fault> plan = NemesisPlan.draw(1, Duration.ofMinutes(10), 3, 3);
    long plannedMs =
        plan.stream().mapToLong(f -> f.gapBefore().toMillis() + f.hold().toMillis()).sum();
    assertThat(plannedMs).isGreaterThanOrEqualTo(Duration.ofMinutes(10).toMillis());
  }

  @Test
  void aClusterWithoutNodesOrInstancesIsRefused() {
    assertThatThrownBy(() -> NemesisPlan.draw(1, Duration.ofMinutes(1), 0, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
