package io.ambergarden.localrt;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Initial tokens of a local cluster, what ccm gets from {@code generatetokens}: the Murmur3 ring
 * cut into size × perNode equal ranges, node i taking every size-th one, so each node owns the same
 * share and the first boot needs no token allocation.
 */
final class ClusterTokens {
  private static final BigInteger RING = BigInteger.TWO.pow(64);
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);

  private ClusterTokens() {}

  /** The tokens of node {@code index} (1-based), as decimal strings in ring order. */
  static List<String> of(int index, int size, int perNode) {
    if (index < 1 || index > size || perNode < 1) {
      throw new IllegalArgumentException("no node " + index + " of " + size);
    }
    BigInteger count = BigInteger.valueOf((long) size * perNode);
    List<String> out = new ArrayList<>(perNode);
    for (int k = index - 1; k < size * perNode; k += size) {
      out.add(MIN.add(RING.multiply(BigInteger.valueOf(k)).divide(count)).toString());
    }
    return out;
  }
}
