package io.ambergarden.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clock check's meters: per Cassandra node its offset, the offset's uncertainty and failed
 * checks; over all nodes the skew. At most {@link #MAX_NODES} nodes are tracked; a node that leaves
 * the cluster's metadata takes its meters with it. Updated from one event loop, read by scrapes.
 */
final class ClockMeters {
  static final int MAX_NODES = 64;

  private final MeterRegistry registry;
  private final Map<String, NodeMeters> nodes = new ConcurrentHashMap<>();
  private final Gauge skew;
  private volatile double skewSeconds;

  ClockMeters(MeterRegistry registry) {
    this.registry = registry;
    skew =
        Gauge.builder("amber.clock.skew.seconds", this, m -> m.skewSeconds)
            .description(
                "Largest clock offset between this instance and a Cassandra node beyond its"
                    + " measurement uncertainty (0 when every offset is within it)")
            .register(registry);
  }

  /** Whether {@code node} is tracked now or there is room for it. */
  boolean track(String node) {
    if (nodes.containsKey(node)) {
      return true;
    }
    if (nodes.size() >= MAX_NODES) {
      return false;
    }
    nodes.put(node, new NodeMeters(registry, node));
    return true;
  }

  /** Forgets, meters included, every node not in {@code present}. */
  void retain(Set<String> present) {
    for (String node : List.copyOf(nodes.keySet())) {
      if (!present.contains(node)) {
        nodes.remove(node).remove(registry);
      }
    }
  }

  void measured(String node, ClockOffsets.Offset offset) {
    NodeMeters m = nodes.get(node);
    if (m != null) {
      m.offset = offset.seconds();
      m.uncertainty = offset.uncertaintySeconds();
    }
  }

  /** The node did not answer: its offset is unknown (NaN) until it does. */
  void failed(String node) {
    NodeMeters m = nodes.get(node);
    if (m != null) {
      m.offset = Double.NaN;
      m.uncertainty = Double.NaN;
      m.failures.increment();
    }
  }

  void skew(double seconds) {
    skewSeconds = seconds;
  }

  /** Removes every meter: a later check (a redeployed verticle) registers its own. */
  void close() {
    retain(Set.of());
    registry.remove(skew);
  }

  private static final class NodeMeters {
    private final List<Meter> meters = new ArrayList<>();
    private final Counter failures;
    private volatile double offset = Double.NaN;
    private volatile double uncertainty = Double.NaN;

    NodeMeters(MeterRegistry registry, String node) {
      meters.add(
          Gauge.builder("amber.clock.offset.seconds", this, m -> m.offset)
              .tag("node", node)
              .description(
                  "Clock of the Cassandra node minus this instance's (positive: the node is"
                      + " ahead); NaN when its last check failed")
              .register(registry));
      meters.add(
          Gauge.builder("amber.clock.offset.uncertainty.seconds", this, m -> m.uncertainty)
              .tag("node", node)
              .description("How far the true clock offset may be from amber_clock_offset_seconds")
              .register(registry));
      failures =
          Counter.builder("amber.clock.checks.failed")
              .tag("node", node)
              .description("Clock checks of the Cassandra node that got no answer")
              .register(registry);
      meters.add(failures);
    }

    void remove(MeterRegistry registry) {
      meters.forEach(registry::remove);
    }
  }
}
