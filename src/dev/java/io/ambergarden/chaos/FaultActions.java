package io.ambergarden.chaos;

import io.ambergarden.chaos.NemesisPlan.Fault;
import io.ambergarden.chaos.net.ClockSkew;
import io.ambergarden.chaos.net.Cut;
import io.ambergarden.chaos.net.CutEffect;
import io.ambergarden.chaos.net.PartitionShape;
import io.ambergarden.chaos.net.Probe;
import io.ambergarden.chaos.net.ProbeMatrix;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.KafkaCluster;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Turns one planned fault into its injection and its heal on the running system. Every partition is
 * checked by probes right after it is cut: the links it should cut are cut, the others work.
 */
final class FaultActions {
  /**
   * A fault in force.
   *
   * @param target where it struck (a broker id, a node), as the report shows it
   * @param probes what the connectivity probes saw right after the cut; empty for other faults
   * @param probesMatched whether they saw exactly the cut the fault meant (true without probes)
   * @param midwayAction run halfway through the hold (a skew jumps)
   * @param healAction undoes the fault
   */
  record Active(
      String target, String probes, boolean probesMatched, Runnable midwayAction, Heal healAction) {
    void midway() {
      midwayAction.run();
    }

    void heal() throws Exception {
      healAction.run();
    }
  }

  static final Duration PROBE_TIMEOUT = Duration.ofMillis(700);
  static final Duration NODE_START_DEADLINE = Duration.ofMinutes(8);
  static final int CLIENT_FAULTS_PER_SECOND = 4;
  static final Duration LOOKUP_DEADLINE = Duration.ofSeconds(30);

  private final ChaosSystem system;
  private final String topic;
  private final ClientFaults clients;

  FaultActions(ChaosSystem system, String topic, ClientFaults clients) {
    this.system = system;
    this.topic = topic;
    this.clients = clients;
  }

  Active inject(Fault f) throws Exception {
    int t = f.target();
    List<Integer> nodes = nodeIds();
    return switch (f.kind()) {
      case KILL_NODE -> killNodes(List.of(t));
      case LOSE_MAJORITY -> killNodes(nodes.stream().filter(n -> n != t).toList());
      case PAUSE_NODE -> {
        CassandraNode n = system.node(t);
        n.pause();
        yield plain("node " + t, n::resume);
      }
      case ISOLATE_NODE -> partition(PartitionShape.isolate(t, nodes));
      case SPLIT_NODES -> minoritySide(t, nodes);
      case BRIDGE_NODES -> partition(PartitionShape.bridge(bridgeOrder(t, nodes)));
      case CUT_INSTANCES_FROM_NODE -> cutInstancesFromNode(t);
      case SKEW_NODE -> skew("node " + t, system.nodeSkew(t), f);
      case KILL_LEADER -> {
        KafkaBroker b = leaderOf(t);
        kafka().kill(b.nodeId());
        yield plain("broker " + b.nodeId(), () -> startBroker(b));
      }
      case PAUSE_LEADER -> {
        KafkaBroker b = leaderOf(t);
        kafka().pause(b.nodeId());
        yield plain("broker " + b.nodeId(), () -> kafka().resume(b.nodeId()));
      }
      case KILL_CONTROLLER -> {
        KafkaBroker b =
            kafka().node(retrying("the active controller", system.kafkaAdmin()::activeController));
        kafka().kill(b.nodeId());
        yield plain("controller " + b.nodeId(), () -> startBroker(b));
      }
      case ISOLATE_BROKER -> isolateBroker(t);
      case CUT_INSTANCE_FROM_BROKERS -> cutInstanceFromBrokers(t);
      case KILL_INSTANCE -> {
        system.kill(t);
        yield plain("instance " + t, () -> system.start(t));
      }
      case TERM_INSTANCE -> {
        Duration exit = system.terminate(t);
        yield plain(
            "instance " + t + " (exited " + exit.toMillis() + " ms after SIGTERM)",
            () -> system.start(t));
      }
      case PAUSE_INSTANCE -> {
        system.signal(t, true);
        yield plain("instance " + t, () -> system.signal(t, false));
      }
      case SKEW_INSTANCE -> skew("instance " + t, system.slotSkew(t), f);
      case CLIENT_FAULTS -> clientFaults(f);
    };
  }

  private Active killNodes(List<Integer> which) {
    for (int n : which) {
      system.node(n).kill();
    }
    return plain(
        "nodes " + which,
        () -> {
          for (int n : which) {
            system.node(n).start();
          }
          system.runtime().cluster().awaitUp(Instant.now().plus(NODE_START_DEADLINE));
        });
  }

  /** The cut shape on the storage port, probed on it; clients (CQL) are untouched. */
  private Active partition(PartitionShape shape) {
    int port = system.runtime().options().storagePort();
    List<Cut> cuts = Cut.of(shape, ChaosSystem::nodeAddress, OptionalInt.of(port));
    system.firewall().cut(cuts, CutEffect.DROP);
    ProbeMatrix.Report r =
        ProbeMatrix.check(
            ProbeMatrix.forShape(shape, ChaosSystem::nodeAddress, port, PROBE_TIMEOUT));
    return cut(shape.description(), cuts, r);
  }

  private Active cutInstancesFromNode(int node) {
    int port = system.runtime().options().cqlPort();
    InetAddress nodeAddress = ChaosSystem.nodeAddress(node);
    List<Cut> cuts = new ArrayList<>();
    List<ProbeMatrix.Expectation> probes = new ArrayList<>();
    for (int slot = 0; slot < system.instances(); slot++) {
      InetAddress from = ChaosSystem.instanceAddress(slot);
      cuts.add(Cut.onPort(from, nodeAddress, port));
      for (int n : nodeIds()) {
        probes.add(
            connect(
                "instance " + slot,
                from,
                "node " + n,
                ChaosSystem.nodeAddress(n),
                port,
                n != node));
      }
    }
    system.firewall().cut(cuts, CutEffect.DROP);
    return cut("instances cut from node " + node, cuts, ProbeMatrix.check(probes));
  }

  private Active isolateBroker(int brokerId) {
    List<KafkaBroker> brokers = kafka().brokers();
    InetAddress alone = ChaosSystem.address(kafka().broker(brokerId).host());
    List<Cut> cuts = new ArrayList<>();
    List<ProbeMatrix.Expectation> probes = new ArrayList<>();
    for (KafkaBroker b : brokers) {
      if (b.nodeId() != brokerId) {
        InetAddress other = ChaosSystem.address(b.host());
        cuts.add(Cut.between(alone, other));
        probes.add(
            connect("broker " + brokerId, alone, "broker " + b.nodeId(), other, b.port(), false));
        probes.add(
            connect("broker " + b.nodeId(), other, "broker " + brokerId, alone, b.port(), false));
      }
    }
    // clients still reach the isolated broker
    probes.add(
        connect(
            "instance 0",
            ChaosSystem.instanceAddress(0),
            "broker " + brokerId,
            alone,
            kafka().broker(brokerId).port(),
            true));
    system.firewall().cut(cuts, CutEffect.DROP);
    return cut(
        "broker " + brokerId + " isolated from the other brokers", cuts, ProbeMatrix.check(probes));
  }

  private Active cutInstanceFromBrokers(int slot) {
    InetAddress from = ChaosSystem.instanceAddress(slot);
    List<Cut> cuts = new ArrayList<>();
    List<ProbeMatrix.Expectation> probes = new ArrayList<>();
    for (KafkaBroker b : kafka().brokers()) {
      InetAddress broker = ChaosSystem.address(b.host());
      cuts.add(Cut.between(from, broker));
      probes.add(
          connect("instance " + slot, from, "broker " + b.nodeId(), broker, b.port(), false));
      int other = (slot + 1) % system.instances();
      probes.add(
          connect(
              "instance " + other,
              ChaosSystem.instanceAddress(other),
              "broker " + b.nodeId(),
              broker,
              b.port(),
              true));
    }
    system.firewall().cut(cuts, CutEffect.DROP);
    return cut("instance " + slot + " cut from every broker", cuts, ProbeMatrix.check(probes));
  }

  private static ProbeMatrix.Expectation connect(
      String fromName,
      InetAddress from,
      String toName,
      InetAddress to,
      int port,
      boolean reachable) {
    InetSocketAddress target = new InetSocketAddress(to, port);
    return new ProbeMatrix.Expectation(
        fromName + " -> " + toName + ":" + port,
        reachable,
        () -> Probe.connect(from, target, PROBE_TIMEOUT));
  }

  private Active cut(String what, List<Cut> cuts, ProbeMatrix.Report report) {
    String seen =
        report.ok()
            ? report.results().size() + " probes as expected"
            : "MISMATCH " + report.mismatches();
    if (!report.ok()) {
      System.out.printf("[chaos] %s: probes did not match:%n%s%n", what, report);
    }
    return new Active(
        what, seen, report.ok(), () -> {}, () -> system.firewall().uncut(cuts, CutEffect.DROP));
  }

  private Active skew(String what, ClockSkew skew, Fault f) {
    skew.set(f.skew());
    return new Active(
        what + " " + f.skew().toMillis() + " ms, then " + f.jump().toMillis() + " ms",
        "",
        true,
        () -> skew.set(f.jump()),
        () -> skew.set(Duration.ZERO));
  }

  private Active clientFaults(Fault f) {
    Thread burst =
        new Thread(
            () -> {
              try {
                clients.burst(f.hold(), CLIENT_FAULTS_PER_SECOND, system::isUp);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "chaos-client-faults");
    burst.setDaemon(true);
    burst.start();
    return plain("every instance", () -> burst.join(f.hold().toMillis() + 30_000));
  }

  /** The middle of the bridge is {@code middle}; the others on either side. */
  private static List<Integer> bridgeOrder(int middle, List<Integer> nodes) {
    List<Integer> others = nodes.stream().filter(n -> n != middle).toList();
    List<Integer> order = new ArrayList<>();
    order.add(others.get(0));
    order.add(middle);
    order.addAll(others.subList(1, others.size()));
    return order;
  }

  private KafkaBroker leaderOf(int partition) throws InterruptedException {
    int id =
        retrying(
            "the leader of partition " + partition,
            () ->
                system
                    .kafkaAdmin()
                    .leaderOf(topic, partition)
                    .orElseThrow(() -> new IllegalStateException("no leader")));
    return kafka().broker(id);
  }

  /**
   * Asks until the cluster answers: right after another fault a partition may be between leaders.
   */
  private static int retrying(String what, java.util.function.IntSupplier ask)
      throws InterruptedException {
    long end = System.nanoTime() + LOOKUP_DEADLINE.toNanos();
    while (true) {
      try {
        return ask.getAsInt();
      } catch (RuntimeException e) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException(
              "no answer for " + what + " within " + LOOKUP_DEADLINE, e);
        }
      }
      TimeUnit.MILLISECONDS.sleep(500); // polling the cluster's metadata until the deadline
    }
  }

  /**
   * Node {@code alone} cut off from the two others, and every instance cut off from those two: the
   * clients are on the minority side, where nothing may be acknowledged in direct mode.
   */
  private Active minoritySide(int alone, List<Integer> nodes) {
    PartitionShape shape = PartitionShape.isolate(alone, nodes);
    int storage = system.runtime().options().storagePort();
    int cql = system.runtime().options().cqlPort();
    List<Cut> cuts =
        new ArrayList<>(Cut.of(shape, ChaosSystem::nodeAddress, OptionalInt.of(storage)));
    List<ProbeMatrix.Expectation> probes =
        new ArrayList<>(
            ProbeMatrix.forShape(shape, ChaosSystem::nodeAddress, storage, PROBE_TIMEOUT));
    for (int slot = 0; slot < system.instances(); slot++) {
      InetAddress from = ChaosSystem.instanceAddress(slot);
      for (int n : nodes) {
        InetAddress node = ChaosSystem.nodeAddress(n);
        if (n != alone) {
          cuts.add(Cut.onPort(from, node, cql));
        }
        probes.add(connect("instance " + slot, from, "node " + n, node, cql, n == alone));
      }
    }
    system.firewall().cut(cuts, CutEffect.DROP);
    return cut(
        "clients with node " + alone + " on the minority side", cuts, ProbeMatrix.check(probes));
  }

  private void startBroker(KafkaBroker b) {
    kafka().start(b.nodeId());
  }

  private KafkaCluster kafka() {
    return system.runtime().kafkaCluster();
  }

  private List<Integer> nodeIds() {
    return system.runtime().cluster().nodes().stream().map(CassandraNode::index).toList();
  }

  @FunctionalInterface
  interface Heal {
    void run() throws Exception;
  }

  private static Active plain(String target, Heal heal) {
    return new Active(target, "", true, () -> {}, heal);
  }

  static void sleep(Duration d) throws InterruptedException {
    // the hold is the schedule itself
    TimeUnit.MILLISECONDS.sleep(d.toMillis());
  }
}
