package io.ambergarden.chaos.net;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A network partition as pure data: which pairs of nodes (1-based) cannot talk. The shapes are
 * Jepsen's: one node isolated, a majority/minority split, and a bridge. A shape knows nothing of
 * addresses or iptables; {@link Cut} and {@link Firewall} turn its pairs into rules.
 */
public final class PartitionShape {
  private final String description;
  private final SortedSet<Integer> nodes;
  private final Set<NodePair> cut;

  private PartitionShape(String description, SortedSet<Integer> nodes, Set<NodePair> cut) {
    this.description = description;
    this.nodes = Collections.unmodifiableSortedSet(nodes);
    this.cut = Set.copyOf(cut);
  }

  /** No partition: every node reaches every other (what a healed network must show). */
  public static PartitionShape none(Collection<Integer> nodes) {
    return new PartitionShape("no partition", nodeSet(nodes), Set.of());
  }

  /** {@code node} cannot reach any other node; the others still reach each other. */
  public static PartitionShape isolate(int node, Collection<Integer> nodes) {
    SortedSet<Integer> all = nodeSet(nodes);
    require(all.contains(node), "node " + node + " is not one of " + all);
    return split("node " + node + " isolated", Set.of(node), all);
  }

  /**
   * The first {@code n / 2} nodes of {@code order} (the minority) cut from the rest (the majority).
   * The caller shuffles {@code order} with the run's seeded random to pick the sides.
   */
  public static PartitionShape majorityMinority(List<Integer> order) {
    SortedSet<Integer> all = nodeSet(order);
    require(all.size() == order.size(), "duplicate nodes in " + order);
    require(all.size() >= 2, "a split needs two nodes at least, got " + order);
    Set<Integer> minority = new TreeSet<>(order.subList(0, order.size() / 2));
    Set<Integer> majority = new TreeSet<>(order.subList(order.size() / 2, order.size()));
    return split("minority " + minority + " | majority " + majority, minority, all);
  }

  /**
   * Two halves that cannot reach each other, and the middle node of {@code order} that both halves
   * reach: with {1, 2, 3}, only 1 and 3 are cut. Every node still reaches a majority through the
   * bridge, yet no two halves agree on who is up.
   */
  public static PartitionShape bridge(List<Integer> order) {
    SortedSet<Integer> all = nodeSet(order);
    require(all.size() == order.size(), "duplicate nodes in " + order);
    require(all.size() >= 3, "a bridge needs three nodes at least, got " + order);
    int middle = order.size() / 2;
    List<Integer> left = order.subList(0, middle);
    List<Integer> right = order.subList(middle + 1, order.size());
    Set<NodePair> pairs = new java.util.HashSet<>();
    for (int a : left) {
      for (int b : right) {
        pairs.add(NodePair.of(a, b));
      }
    }
    return new PartitionShape(
        "bridge "
            + order.get(middle)
            + " between "
            + new TreeSet<>(left)
            + " and "
            + new TreeSet<>(right),
        all,
        pairs);
  }

  /** Every node of {@code side} cut from every node not in it. */
  public static PartitionShape split(
      String description, Set<Integer> side, Collection<Integer> nodes) {
    SortedSet<Integer> all = nodeSet(nodes);
    require(all.containsAll(side), side + " is not within " + all);
    require(!side.isEmpty() && side.size() < all.size(), "a side must be neither empty nor all");
    Set<NodePair> pairs = new java.util.HashSet<>();
    for (int a : side) {
      for (int b : all) {
        if (!side.contains(b)) {
          pairs.add(NodePair.of(a, b));
        }
      }
    }
    return new PartitionShape(description, all, pairs);
  }

  /**
   * Whether {@code a} and {@code b} can talk while this partition holds (a node reaches itself).
   */
  public boolean reachable(int a, int b) {
    require(nodes.contains(a) && nodes.contains(b), a + " or " + b + " not in " + nodes);
    return a == b || !cut.contains(NodePair.of(a, b));
  }

  /** The pairs to cut, sorted. */
  public List<NodePair> cutPairs() {
    List<NodePair> sorted = new ArrayList<>(cut);
    sorted.sort(java.util.Comparator.comparingInt(NodePair::low).thenComparingInt(NodePair::high));
    return sorted;
  }

  public SortedSet<Integer> nodes() {
    return nodes;
  }

  public String description() {
    return description;
  }

  @Override
  public String toString() {
    return description + " " + cutPairs();
  }

  private static SortedSet<Integer> nodeSet(Collection<Integer> nodes) {
    SortedSet<Integer> all = new TreeSet<>(nodes);
    require(all.stream().allMatch(n -> n >= 1), "nodes are 1-based: " + nodes);
    return all;
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
