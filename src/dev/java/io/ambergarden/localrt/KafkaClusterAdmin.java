package io.ambergarden.localrt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeMetadataQuorumOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * What a fault injector asks a Kafka cluster: who leads a partition, which node is the active KRaft
 * controller, and when a topic has all its replicas in sync again. Each question is one Admin call
 * with a short timeout; a paused or cut-off broker costs at most that timeout, as the client then
 * asks another. The answer comes from whichever broker replied, so during a partition it may be
 * that broker's stale view.
 */
public final class KafkaClusterAdmin implements AutoCloseable {
  private static final int CALL_TIMEOUT_MS = 5000;
  private static final Duration POLL_INTERVAL = Duration.ofMillis(250);

  private final Admin admin;

  public KafkaClusterAdmin(String bootstrapServers) {
    this.admin = Admin.create(KafkaBroker.adminConfig(bootstrapServers));
  }

  public static KafkaClusterAdmin of(KafkaCluster cluster) {
    return new KafkaClusterAdmin(cluster.bootstrapServers());
  }

  /** Every partition of {@code topic}, in partition order. */
  public List<PartitionReplicas> partitions(String topic) {
    TopicDescription d =
        call(
            admin
                .describeTopics(
                    List.of(topic), new DescribeTopicsOptions().timeoutMs(CALL_TIMEOUT_MS))
                .allTopicNames()
                .thenApply(m -> m.get(topic)),
            "describe topic " + topic);
    List<PartitionReplicas> out = new ArrayList<>();
    for (TopicPartitionInfo p : d.partitions()) {
      Node leader = p.leader();
      out.add(
          new PartitionReplicas(
              topic,
              p.partition(),
              leader == null || leader.isEmpty()
                  ? OptionalInt.empty()
                  : OptionalInt.of(leader.id()),
              p.replicas().stream().map(Node::id).toList(),
              p.isr().stream().map(Node::id).toList()));
    }
    return out;
  }

  /** The node id leading {@code topic}-{@code partition}; empty while it has no leader. */
  public OptionalInt leaderOf(String topic, int partition) {
    return partitions(topic).stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow(() -> new LocalRuntimeException("no partition " + partition + " of " + topic))
        .leader();
  }

  /** The node id of the active KRaft controller (the quorum leader). */
  public int activeController() {
    return call(
        admin
            .describeMetadataQuorum(new DescribeMetadataQuorumOptions().timeoutMs(CALL_TIMEOUT_MS))
            .quorumInfo()
            .thenApply(q -> q.leaderId()),
        "describe the metadata quorum");
  }

  /** The brokers registered and not fenced, as the answering broker sees them. */
  public Set<Integer> liveBrokers() {
    return call(
        admin
            .describeCluster(new DescribeClusterOptions().timeoutMs(CALL_TIMEOUT_MS))
            .nodes()
            .thenApply(nodes -> new TreeSet<>(nodes.stream().map(Node::id).toList())),
        "describe the cluster");
  }

  /**
   * Waits until every partition of {@code topic} has a leader and all its replicas in sync, and
   * returns how long that took: the recovery time after a fault. Throws with the partitions still
   * behind when {@code timeout} passes.
   */
  public Duration awaitFullyReplicated(String topic, Duration timeout) {
    long t0 = System.nanoTime();
    long deadline = t0 + timeout.toNanos();
    String last = "";
    while (true) {
      try {
        List<PartitionReplicas> behind = PartitionReplicas.notFullyReplicated(partitions(topic));
        if (behind.isEmpty()) {
          return Duration.ofNanos(System.nanoTime() - t0);
        }
        last = behind.toString();
      } catch (LocalRuntimeException e) {
        last = e.getMessage();
      }
      if (System.nanoTime() > deadline) {
        throw new LocalRuntimeException(
            topic + " not fully replicated within " + timeout.toSeconds() + " s: " + last);
      }
      try {
        // no event tells when a follower rejoins the ISR: poll the metadata
        TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalRuntimeException("interrupted while waiting for " + topic + "'s ISR", e);
      }
    }
  }

  private static <T> T call(org.apache.kafka.common.KafkaFuture<T> future, String what) {
    try {
      return future.get(CALL_TIMEOUT_MS + 1000L, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new LocalRuntimeException("could not " + what + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new LocalRuntimeException(
          "could not " + what + " within " + CALL_TIMEOUT_MS + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalRuntimeException("interrupted while trying to " + what, e);
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
  }
}
