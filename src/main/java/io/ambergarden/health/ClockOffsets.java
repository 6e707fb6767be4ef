package io.ambergarden.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Clock offsets between this instance and the Cassandra nodes, estimated NTP style from timed reads
 * of each node's clock, and the verdict on them: how far the clocks are apart beyond what the
 * measurement can tell, and whether this instance or particular nodes look off. Plain logic: no
 * I/O, no clock of its own.
 */
public final class ClockOffsets {
  /**
   * Both clocks are read in whole milliseconds, so an estimate cannot be trusted closer than this
   * on top of half the round trip.
   */
  static final double RESOLUTION_SECONDS = 0.001;

  private ClockOffsets() {}

  /**
   * One timed read of a node's clock: this instance's wall clock just before the request was sent
   * and just after the answer came, the round trip on the monotonic clock, and the node's time.
   */
  public record Sample(long beforeMillis, long afterMillis, long roundTripNanos, long nodeMillis) {}

  /**
   * How far a node's clock is from this instance's (positive: the node is ahead), and how far the
   * true offset may be from it.
   */
  public record Offset(double seconds, double uncertaintySeconds) {
    /** The part of the offset the measurement can vouch for: |offset| beyond its uncertainty. */
    public double beyondUncertainty() {
      return Math.max(0, Math.abs(seconds) - uncertaintySeconds);
    }
  }

  /**
   * The node answered somewhere within the round trip, so its time is compared with the middle of
   * it, and the answer can be off by up to half the round trip.
   */
  public static Offset estimate(Sample s) {
    double middleMillis = (s.beforeMillis() + s.afterMillis()) / 2.0;
    double seconds = (s.nodeMillis() - middleMillis) / 1000.0;
    double uncertainty = s.roundTripNanos() / 2e9 + RESOLUTION_SECONDS;
    return new Offset(seconds, uncertainty);
  }

  /** The estimate of the sample with the shortest round trip (the least queueing), if any. */
  public static Optional<Offset> best(List<Sample> samples) {
    return samples.stream()
        .min(Comparator.comparingLong(Sample::roundTripNanos))
        .map(ClockOffsets::estimate);
  }

  /**
   * What the offsets say, by node name, against {@code maxSkew}.
   *
   * <p>This instance looks off when there are at least two nodes and every one of them is beyond
   * {@code maxSkew} on the same side. A node looks off when it is beyond {@code maxSkew} from this
   * instance and also from the median of the nodes. With a single node, or clocks spread so that
   * neither holds, the verdict names no culprit.
   */
  public static Verdict judge(Map<String, Offset> offsets, Duration maxSkew) {
    double max = maxSkew.toNanos() / 1e9;
    double skew = 0;
    for (Offset o : offsets.values()) {
      skew = Math.max(skew, o.beyondUncertainty());
    }
    if (skew <= max) {
      return new Verdict(skew, false, false, List.of(), 0);
    }
    boolean instance = offsets.size() >= 2 && allBeyondOnOneSide(offsets, max);
    List<String> nodes = new ArrayList<>();
    for (Map.Entry<String, Offset> e : offsets.entrySet()) {
      Offset o = e.getValue();
      if (o.beyondUncertainty() > max && offTheMedian(e.getKey(), o, offsets, max)) {
        nodes.add(e.getKey());
      }
    }
    nodes.sort(null);
    return new Verdict(skew, true, instance, List.copyOf(nodes), offsets.size());
  }

  private static boolean allBeyondOnOneSide(Map<String, Offset> offsets, double max) {
    boolean ahead = true;
    boolean behind = true;
    for (Offset o : offsets.values()) {
      ahead &= o.seconds() - o.uncertaintySeconds() > max;
      behind &= o.seconds() + o.uncertaintySeconds() < -max;
    }
    return ahead || behind;
  }

  /**
   * Whether {@code node} is beyond {@code max} from the median of all nodes' offsets; with an even
   * number of nodes this instance's clock (offset 0) votes too, so that two against two, or one
   * against one, is decided.
   */
  private static boolean offTheMedian(
      String node, Offset o, Map<String, Offset> offsets, double max) {
    List<Double> clocks = new ArrayList<>();
    double otherUncertainty = 0;
    for (Map.Entry<String, Offset> e : offsets.entrySet()) {
      clocks.add(e.getValue().seconds());
      if (!e.getKey().equals(node)) {
        otherUncertainty = Math.max(otherUncertainty, e.getValue().uncertaintySeconds());
      }
    }
    if (clocks.size() % 2 == 0) {
      clocks.add(0.0);
    }
    double distance = Math.abs(o.seconds() - median(clocks));
    return distance - o.uncertaintySeconds() - otherUncertainty > max;
  }

  /**
   * The cluster's clock relative to this instance's, in seconds: the median of the nodes' offsets,
   * so one skewed node does not move it; empty when no node answered.
   */
  public static java.util.OptionalDouble clusterOffsetSeconds(Map<String, Offset> offsets) {
    if (offsets.isEmpty()) {
      return java.util.OptionalDouble.empty();
    }
    return java.util.OptionalDouble.of(
        median(offsets.values().stream().map(Offset::seconds).toList()));
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * @param skewSeconds the largest |offset| beyond its uncertainty, over the nodes (0 when none)
   * @param exceeded whether that is above the allowed skew
   * @param instanceSkewed every node (at least two) disagrees with this instance the same way
   * @param skewedNodes nodes off both from this instance and from the nodes' median
   * @param nodes how many nodes were judged
   */
  public record Verdict(
      double skewSeconds,
      boolean exceeded,
      boolean instanceSkewed,
      List<String> skewedNodes,
      int nodes) {
    /** One line for the log: which clock looks off, and by how much. */
    public String describe() {
      String amount = String.format(java.util.Locale.ROOT, "%.3f s", skewSeconds);
      if (!exceeded) {
        return "clocks agree within their uncertainty (skew " + amount + ")";
      }
      List<String> parts = new ArrayList<>();
      if (instanceSkewed) {
        parts.add(
            "this instance's clock looks off: all "
                + nodes
                + " Cassandra nodes disagree with it the same way");
      }
      if (!skewedNodes.isEmpty()) {
        parts.add("the clock of Cassandra node(s) " + skewedNodes + " differs from the others");
      }
      if (parts.isEmpty()) {
        parts.add(
            nodes == 1
                ? "with one Cassandra node it cannot be told whether this instance or the node"
                    + " is off"
                : "the Cassandra nodes disagree among themselves; no single clock stands out");
      }
      return "clock skew of " + amount + ": " + String.join("; ", parts);
    }
  }
}
