package io.ambergarden.chaos.net;

/** Two distinct nodes (1-based indices), unordered: {@code of(3, 1)} equals {@code of(1, 3)}. */
public record NodePair(int low, int high) {
  public NodePair {
    if (low < 1 || low >= high) {
      throw new IllegalArgumentException("not a pair of distinct nodes: " + low + ", " + high);
    }
  }

  public static NodePair of(int a, int b) {
    return new NodePair(Math.min(a, b), Math.max(a, b));
  }

  public boolean contains(int node) {
    return node == low || node == high;
  }

  @Override
  public String toString() {
    return low + "<->" + high;
  }
}
