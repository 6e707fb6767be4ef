package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class GroupMemberConsumerTest {
  private static final ConsumerRebalanceListener STREAM =
      new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {}
      };

  @Test
  void aRebalanceThatAssignsNoPartitionIsReportedSoTheMemberCountsAsJoined() throws Exception {
    Vertx vertx = Vertx.vertx();
    List<Collection<TopicPartition>> assigned = new CopyOnWriteArrayList<>();
    GroupMemberConsumer.Partitions partitions =
        new GroupMemberConsumer.Partitions() {
          @Override
          public void assigned(Collection<TopicPartition> tps) {
            assigned.add(tps);
          }

          @Override
          public Map<TopicPartition, Long> revoked(Collection<TopicPartition> tps) {
            return Map.of();
          }

          @Override
          public void lost(Collection<TopicPartition> tps) {}
        };
    // never connects: only the rebalance listener is exercised
    try (GroupMemberConsumer consumer =
        new GroupMemberConsumer(
            Map.of("bootstrap.servers", "127.0.0.1:1", "group.id", "g"),
            vertx.getOrCreateContext(),
            partitions,
            Duration.ofSeconds(1),
            new PartitionHold())) {
      consumer.listener(STREAM).onPartitionsAssigned(List.of());
      await().atMost(Duration.ofSeconds(10)).until(() -> assigned.size() == 1);
      assertThat(assigned.get(0)).isEmpty();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
