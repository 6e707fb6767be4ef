package io.ambergarden.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ambergarden.health.ClockOffsets.Offset;
import io.ambergarden.health.ClockOffsets.Sample;
import io.ambergarden.health.ClockOffsets.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClockOffsetsTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);
  private static final long MS = 1_000_000;

  private static Offset off(double seconds) {
    return new Offset(seconds, 0.002);
  }

  @Test
  void theOffsetIsTheNodeTimeMinusTheMiddleOfTheRoundTripAndItsUncertaintyHalfTheRoundTrip() {
    // sent at 10 000, answered at 10 020: the node said 10 510, so it is about 0.5 s ahead
    Offset o = ClockOffsets.estimate(new Sample(10_000, 10_020, 20 * MS, 10_510));
    assertThat(o.seconds()).isCloseTo(0.5, within(1e-9));
    assertThat(o.uncertaintySeconds())
        .isCloseTo(0.010 + ClockOffsets.RESOLUTION_SECONDS, within(1e-9));
  }

  @Test
  void aNodeBehindThisInstanceHasANegativeOffset() {
    Offset o = ClockOffsets.estimate(new Sample(100_000, 100_002, 2 * MS, 10_001));
    assertThat(o.seconds()).isCloseTo(-90.0, within(1e-9));
  }

  @Test
  void theSampleWithTheShortestRoundTripIsTheOneBelievedBecauseItQueuedLeast() {
    List<Sample> samples =
        List.of(
            new Sample(0, 300, 300 * MS, 400),
            new Sample(1_000, 1_004, 4 * MS, 1_002),
            new Sample(2_000, 2_100, 100 * MS, 2_090));
    Offset best = ClockOffsets.best(samples).orElseThrow();
    assertThat(best.seconds()).isCloseTo(0.0, within(1e-9));
    assertThat(best.uncertaintySeconds()).isCloseTo(0.003, within(1e-9));
    assertThat(ClockOffsets.best(List.of())).isEmpty();
  }

  @Test
  void anOffsetWithinItsUncertaintyCountsAsNoSkew() {
    assertThat(new Offset(0.004, 0.005).beyondUncertainty()).isZero();
    assertThat(new Offset(-0.3, 0.1).beyondUncertainty()).isCloseTo(0.2, within(1e-9));
  }

  @Test
  void noiseWithinTheUncertaintyOrBelowTheLimitIsNotReported() {
    Verdict v =
        ClockOffsets.judge(
            Map.of("a:9042", new Offset(0.2, 0.3), "b:9042", new Offset(-0.8, 0.05)), ONE_SECOND);
    assertThat(v.exceeded()).isFalse();
    assertThat(v.skewSeconds()).isCloseTo(0.75, within(1e-9));
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).isEmpty();
    assertThat(v.describe()).startsWith("clocks agree");
  }

  @Test
  void aLargeOffsetThatTheRoundTripCannotVouchForIsNotReported() {
    // 1.5 s apart, but the answer took 2 s: the node may be right on time
    Verdict v = ClockOffsets.judge(Map.of("a:9042", new Offset(1.5, 1.0)), ONE_SECOND);
    assertThat(v.exceeded()).isFalse();
    assertThat(v.skewSeconds()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void oneNodeOffAmongThreeIsNamedAndThisInstanceIsNot() {
    Verdict v =
        ClockOffsets.judge(
            Map.of("a:9042", off(0.01), "b:9042", off(-0.02), "c:9042", off(42.0)), ONE_SECOND);
    assertThat(v.exceeded()).isTrue();
    assertThat(v.skewSeconds()).isCloseTo(41.998, within(1e-9));
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).containsExactly("c:9042");
    assertThat(v.describe()).contains("c:9042").doesNotContain("this instance's clock");
  }

  @Test
  void anInstanceEveryNodeDisagreesWithTheSameWayIsTheSkewedOne() {
    Verdict v =
        ClockOffsets.judge(
            Map.of("a:9042", off(-90.0), "b:9042", off(-90.1), "c:9042", off(-89.9)), ONE_SECOND);
    assertThat(v.exceeded()).isTrue();
    assertThat(v.instanceSkewed()).isTrue();
    assertThat(v.skewedNodes()).isEmpty();
    assertThat(v.skewSeconds()).isCloseTo(90.098, within(1e-9));
    assertThat(v.describe()).contains("this instance's clock looks off").contains("all 3");
  }

  @Test
  void aSkewedInstanceAndASkewedNodeAreBothNamed() {
    Verdict v =
        ClockOffsets.judge(
            Map.of("a:9042", off(-90.0), "b:9042", off(-90.0), "c:9042", off(-30.0)), ONE_SECOND);
    assertThat(v.instanceSkewed()).isTrue();
    assertThat(v.skewedNodes()).containsExactly("c:9042");
  }

  @Test
  void withTwoNodesTheOneOffFromBothThisInstanceAndTheOtherNodeIsNamed() {
    Verdict v = ClockOffsets.judge(Map.of("a:9042", off(0.0), "b:9042", off(5.0)), ONE_SECOND);
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).containsExactly("b:9042");
  }

  @Test
  void twoNodesAgainstTwoAreDecidedByThisInstancesClock() {
    Verdict v =
        ClockOffsets.judge(
            Map.of(
                "a:9042", off(0.0), "b:9042", off(0.1), "c:9042", off(30.0), "d:9042", off(30.2)),
            ONE_SECOND);
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).containsExactly("c:9042", "d:9042");
  }

  @Test
  void withASingleNodeTheVerdictNamesNoCulpritButStillReportsTheSkew() {
    Verdict v = ClockOffsets.judge(Map.of("a:9042", off(-90.0)), ONE_SECOND);
    assertThat(v.exceeded()).isTrue();
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).isEmpty();
    assertThat(v.describe()).contains("cannot be told whether this instance or the node");
  }

  @Test
  void nodesOffOnBothSidesOfThisInstanceAndTheThirdNodeAreBothNamed() {
    Verdict v =
        ClockOffsets.judge(
            Map.of("a:9042", off(-5.0), "b:9042", off(5.0), "c:9042", off(0.0)), ONE_SECOND);
    assertThat(v.exceeded()).isTrue();
    assertThat(v.instanceSkewed()).isFalse();
    // each of a and b is 5 s from this instance and from the nodes' median
    assertThat(v.skewedNodes()).containsExactly("a:9042", "b:9042");
  }

  @Test
  void clocksSpreadSoThatNoneStandsOutAreReportedWithoutACulprit() {
    // a is 1.8 s ahead of this instance but only 0.9 s from b, which is within the limit
    Verdict v = ClockOffsets.judge(Map.of("a:9042", off(1.8), "b:9042", off(0.9)), ONE_SECOND);
    assertThat(v.exceeded()).isTrue();
    assertThat(v.instanceSkewed()).isFalse();
    assertThat(v.skewedNodes()).isEmpty();
    assertThat(v.describe()).contains("disagree among themselves");
  }

  @Test
  void noAnswersMeanNoSkew() {
    Verdict v = ClockOffsets.judge(Map.of(), ONE_SECOND);
    assertThat(v.exceeded()).isFalse();
    assertThat(v.skewSeconds()).isZero();
    assertThat(v.nodes()).isZero();
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(ClockOffsets.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(ClockOffsets.median(List.of(7.0, 1.0, 3.0))).isEqualTo(3.0);
  }

  @Test
  void theClustersOffsetIsTheNodesMedianSoOneSkewedNodeDoesNotMoveIt() {
    assertThat(
            ClockOffsets.clusterOffsetSeconds(
                java.util.Map.of("n1", off(-74.0), "n2", off(-74.1), "n3", off(40.0))))
        .hasValue(-74.0);
    assertThat(ClockOffsets.clusterOffsetSeconds(java.util.Map.of())).isEmpty();
  }
}
