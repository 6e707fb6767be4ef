package io.ambergarden.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The nemesis's schedule, drawn from a seed so a failing run can be replayed: steps one after
 * another, each after a quiet gap. A step is one fault, two at once, or an aftershock (a second
 * fault struck the moment the first heals, while hints replay or the group rebalances). The plan
 * opens with one of each thing a run must show (a partition, a clock skew, two faults at once, an
 * aftershock, a majority loss), then draws at random. The executor runs the steps in order until
 * the run's time is up.
 */
public final class NemesisPlan {
  /** What a fault hits; two faults at once never share a domain (but a majority loss is one). */
  public enum Domain {
    STORAGE,
    KAFKA,
    INSTANCE
  }

  /** The faults the nemesis can inject. */
  public enum Kind {
    /** SIGKILL a Cassandra node, start it again after the hold. */
    KILL_NODE(Domain.STORAGE),
    /** SIGSTOP a Cassandra node for the hold (a slow replica), then SIGCONT. */
    PAUSE_NODE(Domain.STORAGE),
    /** One node cut off from its peers (storage port); clients still reach it. */
    ISOLATE_NODE(Domain.STORAGE),
    /**
     * A minority of the nodes cut off from the majority (storage port), and the instances from the
     * majority (CQL port): the clients are on the minority side.
     */
    SPLIT_NODES(Domain.STORAGE),
    /** Two halves that reach each other only through the middle node (storage port). */
    BRIDGE_NODES(Domain.STORAGE),
    /** Every service instance cut off from one node (its CQL port); the nodes still talk. */
    CUT_INSTANCES_FROM_NODE(Domain.STORAGE),
    /** SIGKILL two of the three nodes: no quorum until they return. */
    LOSE_MAJORITY(Domain.STORAGE),
    /** A node's wall clock off by seconds to minutes, jumping to another offset mid-hold. */
    SKEW_NODE(Domain.STORAGE),
    /** SIGKILL the broker leading a partition of the input topic. */
    KILL_LEADER(Domain.KAFKA),
    /** SIGSTOP the broker leading a partition of the input topic. */
    PAUSE_LEADER(Domain.KAFKA),
    /** SIGKILL the active KRaft controller (a combined broker and controller). */
    KILL_CONTROLLER(Domain.KAFKA),
    /** One broker cut off from the other brokers; clients still reach it. */
    ISOLATE_BROKER(Domain.KAFKA),
    /** One service instance cut off from every broker. */
    CUT_INSTANCE_FROM_BROKERS(Domain.KAFKA),
    /** SIGKILL a service instance, start a new one in its slot after the hold. */
    KILL_INSTANCE(Domain.INSTANCE),
    /** SIGTERM a service instance (graceful stop), start a new one in its slot after the hold. */
    TERM_INSTANCE(Domain.INSTANCE),
    /** SIGSTOP an instance past its group session and its rollup leases, then SIGCONT. */
    PAUSE_INSTANCE(Domain.INSTANCE),
    /** An instance's wall clock off by seconds to minutes, jumping to another offset mid-hold. */
    SKEW_INSTANCE(Domain.INSTANCE),
    /** Clients that hang up during auth, mid-body or after it, trickle, or resend elsewhere. */
    CLIENT_FAULTS(Domain.INSTANCE);

    private final Domain domain;

    Kind(Domain domain) {
      this.domain = domain;
    }

    public Domain domain() {
      return domain;
    }

    boolean isPartition() {
      return switch (this) {
        case ISOLATE_NODE,
            SPLIT_NODES,
            BRIDGE_NODES,
            CUT_INSTANCES_FROM_NODE,
            ISOLATE_BROKER,
            CUT_INSTANCE_FROM_BROKERS ->
            true;
        default -> false;
      };
    }

    /** While it holds, the instances reach no quorum of nodes. */
    boolean losesQuorum() {
      return this == LOSE_MAJORITY || this == SPLIT_NODES;
    }

    boolean isSkew() {
      return this == SKEW_NODE || this == SKEW_INSTANCE;
    }

    /** Faults whose healing starts a recovery worth striking into. */
    boolean startsRecovery() {
      return switch (this) {
        case KILL_NODE, PAUSE_NODE, ISOLATE_NODE, KILL_LEADER, KILL_INSTANCE, PAUSE_INSTANCE ->
            true;
        default -> false;
      };
    }
  }

  /** How a step's faults relate in time. */
  public enum Shape {
    /** One fault. */
    SINGLE,
    /** Both faults injected together, held together, healed together. */
    TOGETHER,
    /** The second fault struck as the first heals, during its recovery. */
    AFTERSHOCK
  }

  /**
   * One fault: its kind; its target (node 1..n, the node alone in a split, bridge or majority loss,
   * instance slot 0..m-1, broker 1..3, the input topic's partition whose leader is hit, or 0 when
   * the kind picks its own); how long it is held; and, for skews, the offset and the one it jumps
   * to halfway.
   */
  public record Fault(Kind kind, int target, Duration hold, Duration skew, Duration jump) {
    @Override
    public String toString() {
      String what =
          switch (kind) {
            case KILL_NODE, PAUSE_NODE, ISOLATE_NODE, CUT_INSTANCES_FROM_NODE, SKEW_NODE ->
                " node " + target;
            case KILL_LEADER, PAUSE_LEADER -> " leader of partition " + target;
            case KILL_INSTANCE,
                TERM_INSTANCE,
                PAUSE_INSTANCE,
                SKEW_INSTANCE,
                CUT_INSTANCE_FROM_BROKERS ->
                " instance " + target;
            case ISOLATE_BROKER -> " broker " + target;
            case SPLIT_NODES -> " clients with minority node " + target;
            case BRIDGE_NODES -> " bridge node " + target;
            case LOSE_MAJORITY -> " all but node " + target;
            case KILL_CONTROLLER, CLIENT_FAULTS -> "";
          };
      String skews =
          kind.isSkew() ? " skew " + skew.toMillis() + " ms then " + jump.toMillis() + " ms" : "";
      return kind + what + skews + " hold " + hold.toMillis() + " ms";
    }
  }

  /** One step of the schedule: its faults, how they overlap, and the quiet gap before it. */
  public record Step(int index, Shape shape, List<Fault> faults, Duration gapBefore) {
    public Step {
      faults = List.copyOf(faults);
      if (faults.size() != (shape == Shape.SINGLE ? 1 : 2)) {
        throw new IllegalArgumentException(shape + " with " + faults.size() + " faults");
      }
    }

    /** Wall time the step keeps faults in, recoveries aside. */
    Duration held() {
      return shape == Shape.AFTERSHOCK
          ? faults.get(0).hold().plus(faults.get(1).hold())
          : faults.stream().map(Fault::hold).max(Duration::compareTo).orElseThrow();
    }

    @Override
    public String toString() {
      String body =
          switch (shape) {
            case SINGLE -> faults.get(0).toString();
            case TOGETHER -> faults.get(0) + " WITH " + faults.get(1);
            case AFTERSHOCK -> faults.get(0) + " THEN AT ITS HEAL " + faults.get(1);
          };
      return "#" + index + " " + body + " after " + gapBefore.toMillis() + " ms";
    }
  }

  /** The sizes the plan targets. */
  public record Topology(int nodes, int instances, int partitions, int brokers) {
    public Topology {
      if (nodes < 3 || instances < 2 || partitions < 1 || brokers < 3) {
        throw new IllegalArgumentException(
            "the nemesis needs 3 nodes, 2 instances, 1 partition and 3 brokers at least: " + this);
      }
    }
  }

  static final Duration MIN_GAP = Duration.ofSeconds(5);
  static final Duration MAX_GAP = Duration.ofSeconds(12);

  /** Longer than the chaos run's session timeout (10 s) and rollup lease TTL (15 s). */
  static final Duration MIN_INSTANCE_PAUSE = Duration.ofSeconds(20);

  private NemesisPlan() {}

  /**
   * Enough steps to fill {@code run} even if every recovery were instant: the executor stops at the
   * deadline, so the tail is usually never reached.
   */
  public static List<Step> draw(long seed, Duration run, Topology t) {
    Random random = new Random(seed);
    // the opening: a partition, a skew, two at once and an aftershock in some order, then a
    // majority loss, so even a short run has each
    List<Draft> opening = new ArrayList<>();
    opening.add(Draft.single(fault(pick(random, Kind::isPartition), random, t)));
    opening.add(Draft.single(fault(pick(random, Kind::isSkew), random, t)));
    opening.add(together(random, t));
    opening.add(aftershock(random, t));
    Collections.shuffle(opening, random);
    opening.add(Draft.single(fault(Kind.LOSE_MAJORITY, random, t)));
    List<Step> steps = new ArrayList<>();
    long plannedMs = 0;
    for (int i = 0; plannedMs < run.toMillis() || i < opening.size(); i++) {
      Draft d = i < opening.size() ? opening.get(i) : any(random, t);
      Step s = new Step(i + 1, d.shape(), d.faults(), gap(random));
      steps.add(s);
      plannedMs += s.gapBefore().toMillis() + s.held().toMillis();
    }
    return List.copyOf(steps);
  }

  private record Draft(Shape shape, List<Fault> faults) {
    static Draft single(Fault f) {
      return new Draft(Shape.SINGLE, List.of(f));
    }
  }

  /** Half single faults, the rest two at once or an aftershock. */
  private static Draft any(Random random, Topology t) {
    double r = random.nextDouble();
    if (r < 0.5) {
      return Draft.single(fault(pick(random, k -> true), random, t));
    }
    return r < 0.8 ? together(random, t) : aftershock(random, t);
  }

  /** Two faults of different domains, at once (a majority loss is never one of two). */
  private static Draft together(Random random, Topology t) {
    Kind a = pick(random, k -> k != Kind.LOSE_MAJORITY);
    Kind b = pick(random, k -> k != Kind.LOSE_MAJORITY && k.domain() != a.domain());
    return new Draft(Shape.TOGETHER, List.of(fault(a, random, t), fault(b, random, t)));
  }

  /** A fault whose healing starts a recovery, then any other fault struck right into it. */
  private static Draft aftershock(Random random, Topology t) {
    Fault first = fault(pick(random, Kind::startsRecovery), random, t);
    Fault second = fault(pick(random, k -> k != Kind.LOSE_MAJORITY), random, t);
    if (first.kind().domain() == Domain.STORAGE && second.kind().domain() == Domain.STORAGE) {
      // a second storage fault lands on the node that just came back, so quorum holds
      second = retarget(second, first.target());
    }
    return new Draft(Shape.AFTERSHOCK, List.of(first, second));
  }

  private static Fault retarget(Fault f, int node) {
    return switch (f.kind()) {
      case KILL_NODE, PAUSE_NODE, ISOLATE_NODE, CUT_INSTANCES_FROM_NODE, SKEW_NODE ->
          new Fault(f.kind(), node, f.hold(), f.skew(), f.jump());
      default -> f;
    };
  }

  private static Kind pick(Random random, java.util.function.Predicate<Kind> which) {
    List<Kind> kinds = java.util.Arrays.stream(Kind.values()).filter(which).toList();
    return kinds.get(random.nextInt(kinds.size()));
  }

  static Fault fault(Kind kind, Random random, Topology t) {
    int target =
        switch (kind) {
          case KILL_NODE, PAUSE_NODE, ISOLATE_NODE, CUT_INSTANCES_FROM_NODE, SKEW_NODE ->
              1 + random.nextInt(t.nodes());
          case KILL_LEADER, PAUSE_LEADER -> random.nextInt(t.partitions());
          case KILL_INSTANCE,
              TERM_INSTANCE,
              PAUSE_INSTANCE,
              SKEW_INSTANCE,
              CUT_INSTANCE_FROM_BROKERS ->
              random.nextInt(t.instances());
          case ISOLATE_BROKER -> 1 + random.nextInt(t.brokers());
          // the node alone: the minority, the bridge, the one left up
          case SPLIT_NODES, BRIDGE_NODES, LOSE_MAJORITY -> 1 + random.nextInt(t.nodes());
          case KILL_CONTROLLER, CLIENT_FAULTS -> 0;
        };
    Duration skew = Duration.ZERO;
    Duration jump = Duration.ZERO;
    if (kind.isSkew()) {
      skew = skew(random);
      jump = skew(random);
    }
    return new Fault(kind, target, Duration.ofMillis(holdMillis(kind, random)), skew, jump);
  }

  /** Seconds to minutes, ahead or behind: 2 s to 150 s (inside the 5 min future-skew limit). */
  private static Duration skew(Random random) {
    long ms = between(random, 2_000, 150_000);
    return Duration.ofMillis(random.nextBoolean() ? ms : -ms);
  }

  private static long holdMillis(Kind kind, Random random) {
    return switch (kind) {
      case KILL_NODE, LOSE_MAJORITY -> between(random, 10_000, 25_000);
      case PAUSE_NODE, PAUSE_LEADER -> between(random, 5_000, 12_000);
      case ISOLATE_NODE, SPLIT_NODES, BRIDGE_NODES, CUT_INSTANCES_FROM_NODE ->
          between(random, 8_000, 20_000);
      case SKEW_NODE, SKEW_INSTANCE -> between(random, 15_000, 40_000);
      case KILL_LEADER, KILL_CONTROLLER, ISOLATE_BROKER, CUT_INSTANCE_FROM_BROKERS ->
          between(random, 8_000, 20_000);
      case KILL_INSTANCE, TERM_INSTANCE -> between(random, 0, 8_000);
      case PAUSE_INSTANCE ->
          between(random, MIN_INSTANCE_PAUSE.toMillis(), MIN_INSTANCE_PAUSE.toMillis() + 10_000);
      case CLIENT_FAULTS -> between(random, 5_000, 15_000);
    };
  }

  private static Duration gap(Random random) {
    return Duration.ofMillis(between(random, MIN_GAP.toMillis(), MAX_GAP.toMillis()));
  }

  private static long between(Random random, long min, long max) {
    return min + (long) (random.nextDouble() * (max - min));
  }
}
