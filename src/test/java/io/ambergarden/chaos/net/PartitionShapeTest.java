package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PartitionShapeTest {
  static final List<Integer> NODES = List.of(1, 2, 3);

  @Test
  void anIsolatedNodeIsCutFromEachPeerWhileThePeersStillTalk() {
    PartitionShape s = PartitionShape.isolate(2, NODES);
    assertThat(s.cutPairs()).containsExactly(NodePair.of(1, 2), NodePair.of(2, 3));
    assertThat(s.reachable(1, 3)).isTrue();
    assertThat(s.reachable(3, 1)).isTrue();
    assertThat(s.reachable(2, 1)).isFalse();
    assertThat(s.reachable(3, 2)).isFalse();
  }

  @Test
  void aSplitPutsTheFirstHalfOfTheOrderInTheMinority() {
    PartitionShape s = PartitionShape.majorityMinority(List.of(3, 1, 2));
    assertThat(s.cutPairs()).containsExactly(NodePair.of(1, 3), NodePair.of(2, 3));
    assertThat(s.reachable(1, 2)).isTrue();
    assertThat(s.description()).contains("minority [3]").contains("majority [1, 2]");
  }

  @Test
  void aSplitOfFiveNodesCutsTwoFromThree() {
    PartitionShape s = PartitionShape.majorityMinority(List.of(5, 2, 1, 3, 4));
    assertThat(s.cutPairs()).hasSize(6).allMatch(p -> p.contains(5) || p.contains(2));
    assertThat(s.reachable(2, 5)).isTrue();
    assertThat(s.reachable(1, 4)).isTrue();
    assertThat(s.reachable(5, 1)).isFalse();
  }

  @Test
  void aBridgeOfThreeCutsOnlyTheTwoEndsAndTheMiddleSeesBoth() {
    PartitionShape s = PartitionShape.bridge(List.of(3, 1, 2));
    assertThat(s.cutPairs()).containsExactly(NodePair.of(2, 3));
    assertThat(s.reachable(1, 2)).isTrue();
    assertThat(s.reachable(1, 3)).isTrue();
    assertThat(s.reachable(3, 2)).isFalse();
    assertThat(s.description()).startsWith("bridge 1 ");
  }

  @Test
  void aBridgeOfFiveCutsEachSideFromTheOtherButNotFromTheMiddle() {
    PartitionShape s = PartitionShape.bridge(List.of(1, 2, 3, 4, 5));
    assertThat(s.cutPairs())
        .containsExactly(
            NodePair.of(1, 4), NodePair.of(1, 5), NodePair.of(2, 4), NodePair.of(2, 5));
    for (int n : List.of(1, 2, 4, 5)) {
      assertThat(s.reachable(n, 3)).isTrue();
    }
  }

  @Test
  void noPartitionCutsNothing() {
    PartitionShape s = PartitionShape.none(NODES);
    assertThat(s.cutPairs()).isEmpty();
    assertThat(s.reachable(1, 3)).isTrue();
  }

  @Test
  void aNodeAlwaysReachesItself() {
    assertThat(PartitionShape.isolate(1, NODES).reachable(1, 1)).isTrue();
  }

  @Test
  void shapesThatCannotBeBuiltAreRefused() {
    assertThatThrownBy(() -> PartitionShape.isolate(4, NODES))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PartitionShape.bridge(List.of(1, 2)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PartitionShape.majorityMinority(List.of(1, 1, 2)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PartitionShape.split("all", Set.of(1, 2, 3), NODES))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PartitionShape.none(List.of(0, 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PartitionShape.none(NODES).reachable(1, 4))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPairIsUnorderedAndNeverOfOneNode() {
    assertThat(NodePair.of(3, 1)).isEqualTo(NodePair.of(1, 3));
    assertThatThrownBy(() -> NodePair.of(2, 2)).isInstanceOf(IllegalArgumentException.class);
  }
}
