package io.ambergarden.query;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Merges ascending key lists read from several partitions, each read with the same {@code LIMIT}:
 * the merged keys are complete only up to the smallest last key of a partition that filled its
 * limit (past it, that partition may hold keys not read yet). Plain logic.
 */
final class KeysetMerge {
  /** Keys safe to serve, in order, and whether any partition may hold more. */
  record Result(List<String> keys, boolean more) {}

  private KeysetMerge() {}

  static Result merge(List<List<String>> partitions, int limit) {
    String bound = null;
    for (List<String> p : partitions) {
      if (p.size() >= limit) {
        String last = p.get(p.size() - 1);
        bound = bound == null || last.compareTo(bound) < 0 ? last : bound;
      }
    }
    TreeSet<String> all = new TreeSet<>();
    partitions.forEach(all::addAll);
    List<String> keys = new ArrayList<>(bound == null ? all : all.headSet(bound, true));
    return new Result(keys, bound != null);
  }
}
