package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.chaos.NemesisPlan.Fault;
import io.ambergarden.chaos.NemesisPlan.Kind;
import io.ambergarden.chaos.NemesisPlan.Shape;
import io.ambergarden.chaos.NemesisPlan.Step;
import io.ambergarden.chaos.NemesisPlan.Topology;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NemesisPlanTest {
  private static final Topology T = new Topology(3, 3, 6, 3);

  @Test
  void theSameSeedDrawsTheSameScheduleAndAnotherSeedAnother() {
    List<Step> a = NemesisPlan.draw(42, Duration.ofMinutes(10), T);
    assertThat(NemesisPlan.draw(42, Duration.ofMinutes(10), T)).isEqualTo(a);
    assertThat(NemesisPlan.draw(43, Duration.ofMinutes(10), T)).isNotEqualTo(a);
  }

  @Test
  void theOpeningHasAPartitionASkewTwoAtOnceAnAftershockAndAMajorityLossWhateverTheSeed() {
    for (long seed = 0; seed < 200; seed++) {
      List<Step> opening = NemesisPlan.draw(seed, Duration.ofMinutes(1), T).subList(0, 5);
      List<Fault> singles =
          opening.stream()
              .filter(s -> s.shape() == Shape.SINGLE)
              .map(s -> s.faults().get(0))
              .toList();
      assertThat(singles).anyMatch(f -> f.kind().isPartition());
      assertThat(singles).anyMatch(f -> f.kind().isSkew());
      assertThat(opening).anyMatch(s -> s.shape() == Shape.TOGETHER);
      assertThat(opening).anyMatch(s -> s.shape() == Shape.AFTERSHOCK);
      assertThat(opening.get(4).faults().get(0).kind()).isEqualTo(Kind.LOSE_MAJORITY);
    }
  }

  @Test
  void aLongRunDrawsEveryKindAndEveryShape() {
    List<Step> plan = NemesisPlan.draw(7, Duration.ofMinutes(30), T);
    Set<Kind> kinds =
        plan.stream()
            .flatMap(s -> s.faults().stream())
            .map(Fault::kind)
            .collect(Collectors.toSet());
    assertThat(kinds).isEqualTo(EnumSet.allOf(Kind.class));
    assertThat(plan.stream().map(Step::shape).collect(Collectors.toSet()))
        .isEqualTo(EnumSet.allOf(Shape.class));
  }

  @Test
  void twoFaultsAtOnceNeverShareADomainAndNeitherIsAMajorityLoss() {
    for (long seed = 0; seed < 50; seed++) {
      for (Step s : NemesisPlan.draw(seed, Duration.ofMinutes(30), T)) {
        if (s.shape() == Shape.TOGETHER) {
          assertThat(s.faults().get(0).kind().domain())
              .isNotEqualTo(s.faults().get(1).kind().domain());
        }
        if (s.shape() != Shape.SINGLE) {
          assertThat(s.faults()).noneMatch(f -> f.kind() == Kind.LOSE_MAJORITY);
        }
      }
    }
  }

  @Test
  void anAftershockStrikesARecoveryAndAStorageAftershockHitsTheNodeThatCameBack() {
    for (long seed = 0; seed < 50; seed++) {
      for (Step s : NemesisPlan.draw(seed, Duration.ofMinutes(30), T)) {
        if (s.shape() != Shape.AFTERSHOCK) {
          continue;
        }
        Fault first = s.faults().get(0);
        Fault second = s.faults().get(1);
        assertThat(first.kind().startsRecovery()).as(s.toString()).isTrue();
        boolean bothOnOneNode =
            Set.of(Kind.KILL_NODE, Kind.PAUSE_NODE, Kind.ISOLATE_NODE).contains(first.kind())
                && Set.of(
                        Kind.KILL_NODE,
                        Kind.PAUSE_NODE,
                        Kind.ISOLATE_NODE,
                        Kind.CUT_INSTANCES_FROM_NODE,
                        Kind.SKEW_NODE)
                    .contains(second.kind());
        if (bothOnOneNode) {
          assertThat(second.target()).as(s.toString()).isEqualTo(first.target());
        }
      }
    }
  }

  @Test
  void targetsHoldsSkewsAndGapsStayInTheirRanges() {
    List<Step> plan = NemesisPlan.draw(7, Duration.ofHours(2), new Topology(3, 2, 6, 3));
    for (Step s : plan) {
      assertThat(s.gapBefore()).isBetween(NemesisPlan.MIN_GAP, NemesisPlan.MAX_GAP);
      for (Fault f : s.faults()) {
        switch (f.kind()) {
          case KILL_NODE,
              PAUSE_NODE,
              ISOLATE_NODE,
              CUT_INSTANCES_FROM_NODE,
              SKEW_NODE,
              SPLIT_NODES,
              BRIDGE_NODES,
              LOSE_MAJORITY ->
              assertThat(f.target()).isBetween(1, 3);
          case KILL_LEADER, PAUSE_LEADER -> assertThat(f.target()).isBetween(0, 5);
          case ISOLATE_BROKER -> assertThat(f.target()).isBetween(1, 3);
          case KILL_INSTANCE,
              TERM_INSTANCE,
              PAUSE_INSTANCE,
              SKEW_INSTANCE,
              CUT_INSTANCE_FROM_BROKERS ->
              assertThat(f.target()).isBetween(0, 1);
          case KILL_CONTROLLER, CLIENT_FAULTS -> assertThat(f.target()).isZero();
        }
        if (f.kind() == Kind.PAUSE_INSTANCE) {
          assertThat(f.hold()).isGreaterThanOrEqualTo(NemesisPlan.MIN_INSTANCE_PAUSE);
        }
        if (f.kind().isSkew()) {
          for (Duration d : List.of(f.skew(), f.jump())) {
            assertThat(d.abs()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(150));
          }
        } else {
          assertThat(f.skew()).isZero();
        }
      }
    }
    assertThat(plan.stream().map(Step::index).toList())
        .isEqualTo(IntStream.rangeClosed(1, plan.size()).boxed().toList());
  }

  @Test
  void thePlanFillsTheRunEvenIfEveryRecoveryWereInstant() {
    List<Step> plan = NemesisPlan.draw(1, Duration.ofMinutes(10), T);
    long plannedMs =
        plan.stream().mapToLong(s -> s.gapBefore().toMillis() + s.held().toMillis()).sum();
    assertThat(plannedMs).isGreaterThanOrEqualTo(Duration.ofMinutes(10).toMillis());
  }

  @Test
  void aTopologyTooSmallToKeepAQuorumIsRefused() {
    assertThatThrownBy(() -> new Topology(2, 3, 6, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Topology(3, 3, 6, 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
