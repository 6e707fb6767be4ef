package io.ambergarden.localrt;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where the local Kafka nodes live and what their server.properties say. A single node runs on
 * 127.0.0.1, broker and KRaft controller in one process. A cluster has three brokers, broker i on
 * 127.0.0.1i (127.0.0.11..13), and a quorum of three controllers, either
 *
 * <ul>
 *   <li>{@link Topology#DEDICATED}: controllers 101..103 in processes of their own on
 *       127.0.0.21..23 (what production runs; a broker's death leaves the quorum whole), or
 *   <li>{@link Topology#COMBINED}: in the brokers' processes (half the JVMs, but two brokers down
 *       is also a lost quorum).
 * </ul>
 *
 * Every node uses the same broker and controller ports on its own address, as the Cassandra nodes
 * share theirs on 127.0.0.1..3.
 */
public final class KafkaServerConfig {
  /** The cluster size this runtime supports besides one node: RF 3, min ISR 2, as users run it. */
  public static final int CLUSTER_SIZE = 3;

  /** The cluster's replication factor for every topic the broker creates by default. */
  public static final int CLUSTER_REPLICATION = 3;

  /** acks=all needs this many in-sync replicas in the cluster. */
  public static final int CLUSTER_MIN_INSYNC = 2;

  /** Node id of the first dedicated controller; the others follow. */
  public static final int FIRST_CONTROLLER_ID = 101;

  private static final int BROKER_ADDRESS_BASE = 10;
  private static final int CONTROLLER_ADDRESS_BASE = 20;

  /** Where a cluster's KRaft controllers run. */
  public enum Topology {
    /** Every broker is also a controller. */
    COMBINED,
    /** Three controller-only processes beside three broker-only ones. */
    DEDICATED
  }

  /** What one Kafka process is. */
  public enum Role {
    BROKER_AND_CONTROLLER("broker,controller"),
    BROKER("broker"),
    CONTROLLER("controller");

    private final String processRoles;

    Role(String processRoles) {
      this.processRoles = processRoles;
    }

    public boolean isBroker() {
      return this != CONTROLLER;
    }

    public boolean isController() {
      return this != BROKER;
    }
  }

  /**
   * One process of a local Kafka: its KRaft node id, role and address. {@code clusterSize} 1 is the
   * single node.
   */
  public record Node(int nodeId, Role role, int clusterSize, Topology topology) {
    public Node {
      if (clusterSize != 1 && clusterSize != CLUSTER_SIZE) {
        throw new IllegalArgumentException(
            "a local Kafka has 1 or " + CLUSTER_SIZE + " brokers, not " + clusterSize);
      }
      int index = role == Role.CONTROLLER ? nodeId - FIRST_CONTROLLER_ID + 1 : nodeId;
      if (index < 1 || index > clusterSize) {
        throw new IllegalArgumentException("no Kafka node " + nodeId + " of " + clusterSize);
      }
      Role expected =
          topology == Topology.COMBINED || clusterSize == 1
              ? Role.BROKER_AND_CONTROLLER
              : role == Role.CONTROLLER ? Role.CONTROLLER : Role.BROKER;
      if (role != expected) {
        throw new IllegalArgumentException(role + " is no node of a " + topology + " cluster");
      }
    }

    /** The single node on 127.0.0.1. */
    public static Node single() {
      return new Node(1, Role.BROKER_AND_CONTROLLER, 1, Topology.COMBINED);
    }

    /** 1..3 for brokers (and combined nodes), 1..3 for the controllers 101..103. */
    public int index() {
      return role == Role.CONTROLLER ? nodeId - FIRST_CONTROLLER_ID + 1 : nodeId;
    }

    /** 127.0.0.1 alone, 127.0.0.1i for broker i, 127.0.0.2i for controller 10i. */
    public InetAddress address() {
      int last =
          clusterSize == 1
              ? 1
              : (role == Role.CONTROLLER ? CONTROLLER_ADDRESS_BASE : BROKER_ADDRESS_BASE) + index();
      try {
        return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
      } catch (UnknownHostException e) {
        throw new IllegalStateException(e);
      }
    }

    public String host() {
      return address().getHostAddress();
    }

    /** "broker2", "controller101": the node's directory in the cluster's. */
    String dirName() {
      return role == Role.CONTROLLER ? "controller" + nodeId : "broker" + nodeId;
    }

    /** "Kafka", "Kafka-2", "Kafka-controller-101", in logs and file names. */
    String displayName() {
      if (clusterSize == 1) {
        return "Kafka";
      }
      return role == Role.CONTROLLER ? "Kafka-controller-" + nodeId : "Kafka-" + nodeId;
    }
  }

  private KafkaServerConfig() {}

  /** The brokers of a local Kafka, then its dedicated controllers if it has any. */
  public static List<Node> nodes(int clusterSize, Topology topology) {
    if (clusterSize == 1) {
      return List.of(Node.single());
    }
    List<Node> nodes = new ArrayList<>();
    Role brokerRole = topology == Topology.COMBINED ? Role.BROKER_AND_CONTROLLER : Role.BROKER;
    for (int i = 1; i <= clusterSize; i++) {
      nodes.add(new Node(i, brokerRole, clusterSize, topology));
    }
    if (topology == Topology.DEDICATED) {
      for (int i = 0; i < clusterSize; i++) {
        nodes.add(new Node(FIRST_CONTROLLER_ID + i, Role.CONTROLLER, clusterSize, topology));
      }
    }
    return List.copyOf(nodes);
  }

  /** "127.0.0.11:9092,127.0.0.12:9092,127.0.0.13:9092" (or "127.0.0.1:9092"). */
  public static String bootstrapServers(LocalRuntimeOptions o, int clusterSize, Topology t) {
    return nodes(clusterSize, t).stream()
        .filter(n -> n.role().isBroker())
        .map(n -> n.host() + ":" + o.kafkaPort())
        .collect(Collectors.joining(","));
  }

  /** The static voter set, e.g. "101@127.0.0.21:9093,102@127.0.0.22:9093,103@127.0.0.23:9093". */
  static String quorumVoters(LocalRuntimeOptions o, int clusterSize, Topology t) {
    return nodes(clusterSize, t).stream()
        .filter(n -> n.role().isController())
        .map(n -> n.nodeId() + "@" + n.host() + ":" + o.kafkaControllerPort())
        .collect(Collectors.joining(","));
  }

  /** server.properties of the single combined broker+controller node on 127.0.0.1. */
  static String single(LocalRuntimeOptions o, Path dataDir) {
    int port = o.kafkaPort();
    int ctrl = o.kafkaControllerPort();
    return """
        # Generated by io.ambergarden.localrt.KafkaBroker on every start; edits are overwritten.
        process.roles=broker,controller
        node.id=1
        controller.quorum.bootstrap.servers=127.0.0.1:%2$d
        listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
        advertised.listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
        inter.broker.listener.name=PLAINTEXT
        controller.listener.names=CONTROLLER
        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
        log.dirs=%3$s

        # one node: every replication factor and min ISR is 1
        default.replication.factor=1
        min.insync.replicas=1
        offsets.topic.replication.factor=1
        transaction.state.log.replication.factor=1
        transaction.state.log.min.isr=1
        share.coordinator.state.topic.replication.factor=1
        share.coordinator.state.topic.min.isr=1
        """
            .formatted(port, ctrl, escape(dataDir.toAbsolutePath().toString()))
        + COMMON;
  }

  /**
   * server.properties of one node of the three-broker cluster: its listeners on its own address,
   * the static controller quorum, RF 3 and min ISR 2 everywhere, unclean leader election off (the
   * default, stated because the fault tests rely on it).
   */
  static String clusterNode(LocalRuntimeOptions o, Node node, Path dataDir) {
    if (node.clusterSize() == 1) {
      return single(o, dataDir);
    }
    String host = node.host();
    List<String> listeners = new ArrayList<>();
    if (node.role().isBroker()) {
      listeners.add("PLAINTEXT://" + host + ":" + o.kafkaPort());
    }
    if (node.role().isController()) {
      listeners.add("CONTROLLER://" + host + ":" + o.kafkaControllerPort());
    }
    String listenerList = String.join(",", listeners);
    StringBuilder p = new StringBuilder();
    p.append(
            "# Generated by io.ambergarden.localrt.KafkaBroker on every start; edits are overwritten.\n")
        .append("process.roles=")
        .append(node.role().processRoles)
        .append('\n')
        .append("node.id=")
        .append(node.nodeId())
        .append('\n')
        .append("controller.quorum.voters=")
        .append(quorumVoters(o, node.clusterSize(), node.topology()))
        .append('\n')
        .append("listeners=")
        .append(listenerList)
        .append('\n')
        .append("advertised.listeners=")
        .append(listenerList)
        .append('\n')
        .append("controller.listener.names=CONTROLLER\n")
        .append("listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n")
        .append("log.dirs=")
        .append(escape(dataDir.toAbsolutePath().toString()))
        .append('\n');
    if (node.role().isBroker()) {
      p.append("inter.broker.listener.name=PLAINTEXT\n");
    }
    p.append(
        """

        # as users run it: every topic and internal topic on all three brokers, acks=all needs two
        default.replication.factor=%1$d
        min.insync.replicas=%2$d
        offsets.topic.replication.factor=%1$d
        transaction.state.log.replication.factor=%1$d
        transaction.state.log.min.isr=%2$d
        share.coordinator.state.topic.replication.factor=%1$d
        share.coordinator.state.topic.min.isr=%2$d
        unclean.leader.election.enable=false
        """
            .formatted(CLUSTER_REPLICATION, CLUSTER_MIN_INSYNC));
    return p + COMMON;
  }

  private static final String COMMON =
      """

      # topics are created explicitly (Admin API), as in production
      auto.create.topics.enable=false
      num.partitions=1
      # consumers in tests join at once instead of after 3 s
      group.initial.rebalance.delay.ms=0
      """;

  /** java.util.Properties treats backslash as an escape; keep paths literal. */
  static String escape(String value) {
    return value.replace("\\", "\\\\");
  }
}
