package io.ambergarden.chaos.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.IntFunction;

/**
 * Connections to stop between two addresses: those opened from {@code a} to {@code b} and, unless
 * {@code oneWay}, those opened from {@code b} to {@code a}; with a port, only the connections to
 * that port. Both directions of a cut connection's packets stop. An address stands for a process
 * only if the process connects from it: a node of the local cluster listens on 127.0.0.i but
 * connects from 127.0.0.1 unless given a {@link SourceAddress}; and 127.0.0.1 is also the source of
 * every client without one, so a port keeps such a cut narrow.
 */
public record Cut(InetAddress a, InetAddress b, OptionalInt port, boolean oneWay) {
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

  /** All connections between {@code a} and {@code b}, whoever opens them. */
  public static Cut between(InetAddress a, InetAddress b) {
    return new Cut(a, b, OptionalInt.empty(), false);
  }

  /** The connections from either address to {@code port} on the other. */
  public static Cut onPort(InetAddress a, InetAddress b, int port) {
    return new Cut(a, b, OptionalInt.of(port), false);
  }

  /**
   * Only the connections {@code from} opens to {@code to:port} (e.g. broker 1, connecting from its
   * source address, to broker 2's listener on a shared address).
   */
  public static Cut opened(InetAddress from, InetAddress to, int port) {
    return new Cut(from, to, OptionalInt.of(port), true);
  }

  /** One cut per pair of the shape, node i at {@code addressOf.apply(i)}. */
  public static List<Cut> of(
      PartitionShape shape, IntFunction<InetAddress> addressOf, OptionalInt port) {
    List<Cut> cuts = new ArrayList<>();
    for (NodePair p : shape.cutPairs()) {
      cuts.add(new Cut(addressOf.apply(p.low()), addressOf.apply(p.high()), port, false));
    }
    return cuts;
  }

  @Override
  public String toString() {
    String ends = a.getHostAddress() + (oneWay ? "->" : "<->") + b.getHostAddress();
    return port.isPresent() ? ends + " port " + port.getAsInt() : ends;
  }
}
