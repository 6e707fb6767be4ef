package io.ambergarden.localrt;

import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;

/**
 * One topic partition as the cluster metadata describes it: its leader (none while no in-sync
 * replica is alive), its assigned replicas and its in-sync replicas, by broker node id.
 */
public record PartitionReplicas(
    String topic, int partition, OptionalInt leader, List<Integer> replicas, List<Integer> isr) {
  public PartitionReplicas {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
  }

  /** A leader, and every assigned replica in sync: the partition has recovered from a fault. */
  public boolean isFullyReplicated() {
    return leader.isPresent() && isr.size() == replicas.size() && isr.containsAll(replicas);
  }

  /** True when {@code nodeId} holds a replica of this partition that is in sync. */
  public boolean isInSync(int nodeId) {
    return isr.contains(nodeId);
  }

  /** The partitions that have not recovered yet, for messages and polling. */
  public static List<PartitionReplicas> notFullyReplicated(Collection<PartitionReplicas> all) {
    return all.stream().filter(p -> !p.isFullyReplicated()).toList();
  }

  @Override
  public String toString() {
    return topic
        + "-"
        + partition
        + "[leader "
        + (leader.isPresent() ? Integer.toString(leader.getAsInt()) : "none")
        + ", replicas "
        + replicas
        + ", isr "
        + isr
        + "]";
  }
}
