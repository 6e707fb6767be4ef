package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Merging brokers' views of a topic: a stale broker must not hide a leader change or an ISR. */
class MetadataViewsTest {
  @Test
  void theViewWithTheHighestLeaderEpochNamesTheLeader() {
    // broker 2 was cut off while leading; brokers 1 and 3 saw broker 3 take over in epoch 1
    var stale = view(0, 2, 0, List.of(1, 2, 3));
    var current = view(0, 3, 1, List.of(1, 3));

    assertThat(
            MetadataViews.freshest(
                Map.of(2, List.of(stale), 1, List.of(current), 3, List.of(current))))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.leader()).hasValue(3);
              assertThat(p.isr()).containsExactly(1, 3);
            });
  }

  @Test
  void atEqualEpochsTheLeadersOwnViewOfTheIsrWins() {
    // the leader, broker 1, just shrank the ISR; follower 3 has not heard yet
    var leaders = view(0, 1, 4, List.of(1, 3));
    var followers = view(0, 1, 4, List.of(1, 2, 3));

    assertThat(MetadataViews.freshest(inOrder(3, List.of(followers), 1, List.of(leaders))))
        .singleElement()
        .satisfies(p -> assertThat(p.isr()).containsExactly(1, 3));
    assertThat(MetadataViews.freshest(inOrder(1, List.of(leaders), 3, List.of(followers))))
        .singleElement()
        .satisfies(p -> assertThat(p.isr()).containsExactly(1, 3));
  }

  @Test
  void aTopicHasRecoveredOnlyWhenEveryViewShowsEveryReplicaInSync() {
    var whole = view(0, 1, 2, List.of(1, 2, 3));
    var behind = view(0, 1, 2, List.of(1, 2));

    assertThat(MetadataViews.notFullyReplicated(Map.of(1, List.of(whole), 2, List.of(whole))))
        .isEmpty();
    assertThat(MetadataViews.notFullyReplicated(Map.of(1, List.of(whole), 3, List.of(behind))))
        .containsExactly("broker 3 sees t-0[leader 1, replicas [1, 2, 3], isr [1, 2]]");
  }

  /** Two brokers' views, merged in this order. */
  private static Map<Integer, List<BrokerMetadataView.Partition>> inOrder(
      int a, List<BrokerMetadataView.Partition> va, int b, List<BrokerMetadataView.Partition> vb) {
    Map<Integer, List<BrokerMetadataView.Partition>> m = new java.util.LinkedHashMap<>();
    m.put(a, va);
    m.put(b, vb);
    return m;
  }

  private static BrokerMetadataView.Partition view(
      int partition, int leader, int epoch, List<Integer> isr) {
    return new BrokerMetadataView.Partition(
        new PartitionReplicas("t", partition, OptionalInt.of(leader), List.of(1, 2, 3), isr),
        epoch);
  }
}
