package io.ambergarden.localrt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Several brokers' views of one topic, merged into the most recent one. A leader change raises the
 * partition's leader epoch, so the view with the highest epoch knows the current leader; at equal
 * epochs the leader's own view wins, since the leader is where ISR changes start.
 */
final class MetadataViews {
  private MetadataViews() {}

  /** Per partition, the freshest description among {@code viewsByBroker}. */
  static List<PartitionReplicas> freshest(Map<Integer, List<BrokerMetadataView.Partition>> views) {
    Map<Integer, BrokerMetadataView.Partition> best = new TreeMap<>();
    Map<Integer, Integer> bestFrom = new TreeMap<>();
    views.forEach(
        (broker, partitions) -> {
          for (BrokerMetadataView.Partition p : partitions) {
            int id = p.replicas().partition();
            BrokerMetadataView.Partition current = best.get(id);
            if (current == null || fresher(p, broker, current, bestFrom.get(id))) {
              best.put(id, p);
              bestFrom.put(id, broker);
            }
          }
        });
    List<PartitionReplicas> out = new ArrayList<>();
    best.values().forEach(p -> out.add(p.replicas()));
    return out;
  }

  private static boolean fresher(
      BrokerMetadataView.Partition candidate,
      int candidateBroker,
      BrokerMetadataView.Partition current,
      int currentBroker) {
    if (candidate.leaderEpoch() != current.leaderEpoch()) {
      return candidate.leaderEpoch() > current.leaderEpoch();
    }
    boolean candidateIsLeader = candidate.replicas().leader().orElse(-1) == candidateBroker;
    boolean currentIsLeader = current.replicas().leader().orElse(-1) == currentBroker;
    return candidateIsLeader && !currentIsLeader;
  }

  /** The partitions some view still shows without a leader or with a replica out of sync. */
  static List<String> notFullyReplicated(Map<Integer, List<BrokerMetadataView.Partition>> views) {
    List<String> behind = new ArrayList<>();
    views.forEach(
        (broker, partitions) ->
            partitions.stream()
                .map(BrokerMetadataView.Partition::replicas)
                .filter(p -> !p.isFullyReplicated())
                .forEach(p -> behind.add("broker " + broker + " sees " + p)));
    return behind;
  }
}
