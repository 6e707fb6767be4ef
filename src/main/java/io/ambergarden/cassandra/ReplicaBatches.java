package io.ambergarden.cassandra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Groups single-partition writes by the replicas that own their partition, so that one unlogged
 * batch carries several of them to the same nodes: fewer requests for the driver and the
 * coordinator, and no batch that makes a coordinator forward to other nodes. Groups stay under
 * Cassandra's batch warnings (at most {@code maxItems} partitions, about {@code maxBytes} of
 * values). Items without a replica key travel alone. The approach of the Spark Cassandra
 * connector's replica-set batching.
 */
public final class ReplicaBatches {
  private ReplicaBatches() {}

  public static <T> List<List<T>> group(
      List<T> items,
      Function<T, Object> replicaKey,
      ToIntFunction<T> sizeBytes,
      int maxItems,
      int maxBytes) {
    List<List<T>> out = new ArrayList<>();
    Map<Object, List<T>> open = new LinkedHashMap<>();
    Map<Object, Integer> openBytes = new LinkedHashMap<>();
    for (T item : items) {
      Object key = maxItems > 1 ? replicaKey.apply(item) : null;
      if (key == null) {
        out.add(List.of(item));
        continue;
      }
      int size = sizeBytes.applyAsInt(item);
      List<T> group = open.get(key);
      if (group != null && (group.size() >= maxItems || openBytes.get(key) + size > maxBytes)) {
        out.add(group);
        group = null;
      }
      if (group == null) {
        group = new ArrayList<>();
        open.put(key, group);
        openBytes.put(key, 0);
      }
      group.add(item);
      openBytes.merge(key, size, Integer::sum);
    }
    out.addAll(open.values());
    return out;
  }
}
