package io.ambergarden.localrt;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeMetadataQuorumOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;

/**
 * What a fault injector asks a local Kafka cluster: who leads a partition, which node is the active
 * KRaft controller, and when a topic has all its replicas in sync again.
 *
 * <p>Partition state is asked of every running, unpaused broker separately ({@link
 * BrokerMetadataView}): a broker cut off from the controllers keeps describing the cluster as it
 * was, and a client that asks "any broker" may get that stale answer. Each call costs at most a few
 * seconds per broker that does not answer.
 */
public final class KafkaClusterAdmin implements AutoCloseable {
  private static final int CALL_TIMEOUT_MS = 5000;
  private static final Duration POLL_INTERVAL = Duration.ofMillis(250);

  private final KafkaCluster cluster;
  private final Admin admin;

  public KafkaClusterAdmin(KafkaCluster cluster) {
    this.cluster = cluster;
    this.admin = Admin.create(KafkaBroker.adminConfig(cluster.bootstrapServers()));
  }

  public static KafkaClusterAdmin of(KafkaCluster cluster) {
    return new KafkaClusterAdmin(cluster);
  }

  /**
   * Each answering broker's own view of {@code topic}, by broker id; brokers that are stopped,
   * paused or do not answer are left out.
   */
  Map<Integer, List<BrokerMetadataView.Partition>> views(String topic) {
    Map<Integer, List<BrokerMetadataView.Partition>> views = new LinkedHashMap<>();
    LocalRuntimeException lastFailure = null;
    for (KafkaBroker b : cluster.brokers()) {
      if (!b.isRunning() || b.isPaused()) {
        continue;
      }
      try {
        views.put(b.nodeId(), BrokerMetadataView.describe(b.host(), b.port(), topic));
      } catch (LocalRuntimeException e) {
        lastFailure = e;
      }
    }
    if (views.isEmpty()) {
      throw lastFailure != null
          ? lastFailure
          : new LocalRuntimeException("no running broker to describe " + topic);
    }
    return views;
  }

  /** {@code topic} as broker {@code brokerId} alone describes it (stale if it is cut off). */
  public List<PartitionReplicas> partitionsSeenBy(int brokerId, String topic) {
    KafkaBroker b = cluster.broker(brokerId);
    return BrokerMetadataView.describe(b.host(), b.port(), topic).stream()
        .map(BrokerMetadataView.Partition::replicas)
        .toList();
  }

  /** Every partition of {@code topic}, in partition order, from the freshest broker views. */
  public List<PartitionReplicas> partitions(String topic) {
    return MetadataViews.freshest(views(topic));
  }

  /** The broker leading {@code topic}-{@code partition}; empty while it has no leader. */
  public OptionalInt leaderOf(String topic, int partition) {
    return partitions(topic).stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow(() -> new LocalRuntimeException("no partition " + partition + " of " + topic))
        .leader();
  }

  /**
   * The node id of the active KRaft controller (the quorum leader): 101..103 with dedicated
   * controllers, a broker's id with combined ones; {@link KafkaCluster#node(int)} finds its
   * process.
   */
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
   * Waits until every running, unpaused broker answers and describes every partition of {@code
   * topic} with a leader and all replicas in sync, and returns how long that took: the recovery
   * time after a fault. Throws with what is still behind when {@code timeout} passes.
   */
  public Duration awaitFullyReplicated(String topic, Duration timeout) {
    long t0 = System.nanoTime();
    long deadline = t0 + timeout.toNanos();
    String last = "";
    while (true) {
      try {
        Map<Integer, List<BrokerMetadataView.Partition>> views = views(topic);
        List<String> behind = MetadataViews.notFullyReplicated(views);
        long expected =
            cluster.brokers().stream().filter(b -> b.isRunning() && !b.isPaused()).count();
        if (behind.isEmpty() && views.size() == expected) {
          return Duration.ofNanos(System.nanoTime() - t0);
        }
        last = views.size() < expected ? "answers from " + views.keySet() + " only" : "" + behind;
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

  private static <T> T call(KafkaFuture<T> future, String what) {
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
