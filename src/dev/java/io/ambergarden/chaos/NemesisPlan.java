package io.ambergarden.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The nemesis's schedule, drawn from a seed so a failing run can be replayed: faults one after
 * another, each after a quiet gap, every kind at least once before kinds repeat at random. The
 * executor runs them in order until the run's time is up; their wall-clock start depends on how
 * long each recovery took, and the report records it.
 */
public final class NemesisPlan {
  /** The faults the nemesis can inject. */
  public enum Kind {
    /** SIGKILL a Cassandra node, keep it down for the hold, start it again. */
    KILL_NODE,
    /** SIGSTOP a Cassandra node for the hold, then SIGCONT. */
    PAUSE_NODE,
    /** SIGKILL the Kafka broker, keep it down for the hold, start it again. */
    RESTART_BROKER,
    /** SIGKILL a service instance, start a new one in its slot after the hold. */
    KILL_INSTANCE,
    /** SIGTERM a service instance (graceful stop), start a new one in its slot after the hold. */
    TERM_INSTANCE
  }

  /**
   * One planned fault: its kind, its target (a node 1..n or an instance slot 0..m-1, 0 for the
   * broker), how long it is held, and the quiet gap before it.
   */
  public record Fault(int index, Kind kind, int target, Duration hold, Duration gapBefore) {
    @Override
    public String toString() {
      String what =
          switch (kind) {
            case KILL_NODE, PAUSE_NODE -> "node " + target;
            case RESTART_BROKER -> "broker";
            case KILL_INSTANCE, TERM_INSTANCE -> "instance " + target;
          };
      return "#"
          + index
          + " "
          + kind
          + " "
          + what
          + " hold "
          + hold.toMillis()
          + " ms after "
          + gapBefore.toMillis()
          + " ms";
    }
  }

  private NemesisPlan() {}

  /**
   * Enough faults to fill {@code run} even if every recovery were instant: the executor stops at
   * the deadline, so the tail of the list is usually never reached.
   */
  public static List<Fault> draw(long seed, Duration run, int nodes, int instances) {
    if (nodes < 1 || instances < 1) {
      throw new IllegalArgumentException("nodes and instances must be at least 1");
    }
    Random random = new Random(seed);
    List<Kind> order = new ArrayList<>(List.of(Kind.values()));
    Collections.shuffle(order, random);
    List<Fault> faults = new ArrayList<>();
    long plannedMs = 0;
    while (plannedMs < run.toMillis()) {
      int i = faults.size();
      Kind kind =
          i < order.size() ? order.get(i) : Kind.values()[random.nextInt(Kind.values().length)];
      Duration gap = Duration.ofMillis(between(random, 10_000, 25_000));
      Duration hold = Duration.ofMillis(holdMillis(kind, random));
      int target =
          switch (kind) {
            case KILL_NODE, PAUSE_NODE -> 1 + random.nextInt(nodes);
            case RESTART_BROKER -> 0;
            case KILL_INSTANCE, TERM_INSTANCE -> random.nextInt(instances);
          };
      faults.add(new Fault(i + 1, kind, target, hold, gap));
      plannedMs += gap.toMillis() + hold.toMillis();
    }
    return List.copyOf(faults);
  }

  /** Node pauses 5-10 s (the slow-replica window), outages 5-30 s depending on what is down. */
  private static long holdMillis(Kind kind, Random random) {
    return switch (kind) {
      case KILL_NODE -> between(random, 10_000, 30_000);
      case PAUSE_NODE -> between(random, 5_000, 10_000);
      case RESTART_BROKER -> between(random, 5_000, 15_000);
      case KILL_INSTANCE, TERM_INSTANCE -> between(random, 0, 10_000);
    };
  }

  private static long between(Random random, long min, long max) {
    return min + (long) (random.nextDouble() * (max - min));
  }
}
