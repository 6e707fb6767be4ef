package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionHoldTest {
  private static final String TOPIC = "amber.events";
  private final MockConsumer<byte[], byte[]> consumer =
      new MockConsumer<>(OffsetResetStrategy.EARLIEST);
  private final PartitionHold hold = new PartitionHold();

  /** As GroupMemberConsumer does: the hold is applied inside the poll that assigns partitions. */
  private void subscribe() {
    consumer.subscribe(
        List.of(TOPIC),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> tps) {}

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> tps) {
            hold.apply(consumer);
          }
        });
  }

  private static TopicPartition p(int n) {
    return new TopicPartition(TOPIC, n);
  }

  @Test
  void partitionsAssignedWhileHeldArePausedBeforeTheyDeliverAnything() {
    subscribe();
    consumer.rebalance(List.of(p(0)));
    hold.hold(true);
    hold.apply(consumer);
    consumer.rebalance(List.of(p(0), p(1), p(2)));
    assertThat(consumer.paused()).containsExactlyInAnyOrder(p(0), p(1), p(2));
  }

  @Test
  void aHoldDecidedBeforeARevokeIsAppliedToWhatIsOwnedWhenItRuns() {
    subscribe();
    consumer.rebalance(List.of(p(0), p(1)));
    // the event loop decides to pause, believing it owns 0 and 1; 1 moves away first
    hold.hold(true);
    consumer.rebalance(List.of(p(0)));
    hold.apply(consumer);
    assertThat(consumer.paused()).containsExactly(p(0));
    hold.hold(false);
    consumer.rebalance(List.of(p(0), p(3)));
    hold.apply(consumer);
    assertThat(pausedOwned()).isEmpty();
  }

  @Test
  void repeatedJoinsAndLeavesUnderASlowWriterLeaveExactlyTheOwnedPartitionsPausedOrFlowing() {
    subscribe();
    Random random = new Random(26);
    List<TopicPartition> all = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.add(p(i));
    }
    consumer.rebalance(all.subList(0, 3));
    for (int step = 0; step < 2_000; step++) {
      switch (random.nextInt(4)) {
        // a member joins or leaves: this one's share changes
        case 0 -> consumer.rebalance(randomShare(random, all));
        // the slow writer fills the in-flight cap, or drains below half of it
        case 1 -> hold.hold(true);
        case 2 -> hold.hold(false);
        default -> {}
      }
      hold.apply(consumer); // the next poll
      if (hold.held()) {
        assertThat(pausedOwned()).as("step %d", step).isEqualTo(consumer.assignment());
      } else {
        assertThat(pausedOwned()).as("step %d", step).isEmpty();
      }
    }
  }

  private Set<TopicPartition> pausedOwned() {
    Set<TopicPartition> paused = new HashSet<>(consumer.paused());
    paused.retainAll(consumer.assignment());
    return paused;
  }

  private static List<TopicPartition> randomShare(Random random, List<TopicPartition> all) {
    List<TopicPartition> share = new ArrayList<>();
    for (TopicPartition tp : all) {
      if (random.nextBoolean()) {
        share.add(tp);
      }
    }
    return share;
  }
}
