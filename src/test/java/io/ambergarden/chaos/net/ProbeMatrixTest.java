package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeMatrixTest {
  @Test
  void aShapeExpectsEveryOrderedPairWithItsReachability() {
    List<ProbeMatrix.Expectation> e =
        ProbeMatrix.forShape(
            PartitionShape.isolate(1, List.of(1, 2, 3)),
            i -> InetAddress.getLoopbackAddress(),
            7000,
            Duration.ofMillis(100));
    assertThat(e).hasSize(6);
    assertThat(e)
        .filteredOn(ProbeMatrix.Expectation::reachable)
        .extracting(ProbeMatrix.Expectation::link)
        .containsExactlyInAnyOrder("node 2 -> node 3:7000", "node 3 -> node 2:7000");
  }

  @Test
  void aCutLinkThatAnswersAndAHealthyLinkThatDoesNotAreBothMismatches() {
    ProbeMatrix.Report r =
        ProbeMatrix.check(
            List.of(
                new ProbeMatrix.Expectation("a", true, () -> Probe.Outcome.CONNECTED),
                new ProbeMatrix.Expectation("b", false, () -> Probe.Outcome.TIMED_OUT),
                new ProbeMatrix.Expectation("c", false, () -> Probe.Outcome.ANSWERED),
                new ProbeMatrix.Expectation("d", true, () -> Probe.Outcome.SILENT)));
    assertThat(r.ok()).isFalse();
    assertThat(r.mismatches()).extracting(ProbeMatrix.Result::link).containsExactly("c", "d");
    assertThat(r.toString()).contains("c: expected cut, ANSWERED  <-- MISMATCH");
  }

  @Test
  void aProbeThatThrowsCountsAsFailedNotAsReached() {
    ProbeMatrix.Report r =
        ProbeMatrix.check(
            List.of(
                new ProbeMatrix.Expectation(
                    "x",
                    false,
                    () -> {
                      throw new IllegalStateException("boom");
                    })));
    assertThat(r.ok()).isTrue();
    assertThat(r.results().get(0).observed()).isEqualTo(Probe.Outcome.FAILED);
  }

  @Test
  void nothingToProbeIsAnEmptyPassingReport() {
    assertThat(ProbeMatrix.check(List.of()).ok()).isTrue();
  }
}
