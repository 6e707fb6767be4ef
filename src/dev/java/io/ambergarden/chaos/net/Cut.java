package io.ambergarden.chaos.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.IntFunction;

/**
 * Traffic to stop between two addresses, both ways. With a port, only the connections to that port
 * on either side are cut (e.g. Cassandra's storage port): 127.0.0.1 is node 1's address and also
 * the source of every client that does not bind one, so an address-only cut between node 1 and node
 * 2 would also cut every client from node 2.
 */
public record Cut(InetAddress a, InetAddress b, OptionalInt port) {
  public Cut {
    if (a.equals(b)) {
      throw new IllegalArgumentException("cannot cut " + a + " from itself");
    }
    port.ifPresent(
        p -> {
          if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("not a port: " + p);
          }
        });
  }

  /** All traffic between {@code a} and {@code b}. */
  public static Cut between(InetAddress a, InetAddress b) {
    return new Cut(a, b, OptionalInt.empty());
  }

  /** The connections from either address to {@code port} on the other. */
  public static Cut onPort(InetAddress a, InetAddress b, int port) {
    return new Cut(a, b, OptionalInt.of(port));
  }

  /** One cut per pair of the shape, node i at {@code addressOf.apply(i)}. */
  public static List<Cut> of(
      PartitionShape shape, IntFunction<InetAddress> addressOf, OptionalInt port) {
    List<Cut> cuts = new ArrayList<>();
    for (NodePair p : shape.cutPairs()) {
      cuts.add(new Cut(addressOf.apply(p.low()), addressOf.apply(p.high()), port));
    }
    return cuts;
  }

  @Override
  public String toString() {
    String ends = a.getHostAddress() + "<->" + b.getHostAddress();
    return port.isPresent() ? ends + " port " + port.getAsInt() : ends;
  }
}
