package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.localrt.KafkaServerConfig.Node;
import io.ambergarden.localrt.KafkaServerConfig.Role;
import io.ambergarden.localrt.KafkaServerConfig.Topology;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The three-broker Kafka's layout and server.properties, without starting anything. */
class KafkaClusterConfigTest {
  @TempDir Path tmp;

  private final LocalRuntimeOptions options =
      LocalRuntimeOptions.defaults()
          .withBaseDir(Path.of("/base"))
          .withKafkaPort(19092)
          .withKafkaControllerPort(19093);

  @Test
  void dedicatedControllersRunBesideTheBrokersEachOnItsOwnAddress() {
    KafkaCluster cluster = new KafkaCluster(options, 3, Topology.DEDICATED, 0);

    assertThat(cluster.bootstrapServers())
        .isEqualTo("127.0.0.11:19092,127.0.0.12:19092,127.0.0.13:19092");
    assertThat(cluster.brokers()).extracting(KafkaBroker::nodeId).containsExactly(1, 2, 3);
    assertThat(cluster.controllers())
        .extracting(KafkaBroker::nodeId)
        .containsExactly(101, 102, 103);
    assertThat(cluster.nodes())
        .extracting(KafkaBroker::host)
        .containsExactly(
            "127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.21", "127.0.0.22", "127.0.0.23");
    assertThat(cluster.node(102).dir())
        .isEqualTo(Path.of("/base/kafka-x3-dedicated/controller102"));
    assertThat(cluster.broker(2).dir()).isEqualTo(Path.of("/base/kafka-x3-dedicated/broker2"));
    assertThat(cluster.node(102).ports()).containsOnlyKeys(19093);
    assertThat(cluster.broker(2).ports()).containsOnlyKeys(19092);
    assertThatThrownBy(() -> cluster.broker(101)).hasMessageContaining("no broker");
    assertThatThrownBy(() -> cluster.node(4)).hasMessageContaining("1, 2, 3, 101, 102, 103");
  }

  @Test
  void combinedNodesAreBrokersAndTheQuorumAtOnce() {
    KafkaCluster cluster = new KafkaCluster(options, 3, Topology.COMBINED, 0);

    assertThat(cluster.nodes()).hasSize(3);
    assertThat(cluster.controllers()).isEqualTo(cluster.brokers());
    assertThat(cluster.broker(3).dir()).isEqualTo(Path.of("/base/kafka-x3/broker3"));
    assertThat(cluster.broker(3).ports()).containsOnlyKeys(19092, 19093);
    assertThat(KafkaServerConfig.quorumVoters(options, 3, Topology.COMBINED))
        .isEqualTo("1@127.0.0.11:19093,2@127.0.0.12:19093,3@127.0.0.13:19093");
  }

  @Test
  void theSingleBrokerStaysOnLoopbackOneWithEveryReplicationFactorOne() throws IOException {
    KafkaCluster single = new KafkaCluster(options, 1, 0);

    assertThat(single.bootstrapServers()).isEqualTo("127.0.0.1:19092");
    assertThat(single.nodes())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.dir()).isEqualTo(options.kafkaDir());
              assertThat(b.logFile().getFileName().toString()).isEqualTo("kafka.log");
            });
    Properties p = load(KafkaServerConfig.clusterNode(options, Node.single(), tmp));
    assertThat(p.getProperty("default.replication.factor")).isEqualTo("1");
    assertThat(p.getProperty("controller.quorum.bootstrap.servers")).isEqualTo("127.0.0.1:19093");
  }

  @Test
  void aClusterBrokerReplicatesEverythingThreeTimesAndNeedsTwoInSync() throws IOException {
    Properties p =
        load(
            KafkaServerConfig.clusterNode(
                options, new Node(2, Role.BROKER, 3, Topology.DEDICATED), tmp));

    assertThat(p.getProperty("process.roles")).isEqualTo("broker");
    assertThat(p.getProperty("node.id")).isEqualTo("2");
    assertThat(p.getProperty("listeners")).isEqualTo("PLAINTEXT://127.0.0.12:19092");
    assertThat(p.getProperty("controller.quorum.voters"))
        .isEqualTo("101@127.0.0.21:19093,102@127.0.0.22:19093,103@127.0.0.23:19093");
    assertThat(p.getProperty("inter.broker.listener.name")).isEqualTo("PLAINTEXT");
    for (String rf :
        List.of(
            "default.replication.factor",
            "offsets.topic.replication.factor",
            "transaction.state.log.replication.factor",
            "share.coordinator.state.topic.replication.factor")) {
      assertThat(p.getProperty(rf)).as(rf).isEqualTo("3");
    }
    for (String isr :
        List.of(
            "min.insync.replicas",
            "transaction.state.log.min.isr",
            "share.coordinator.state.topic.min.isr")) {
      assertThat(p.getProperty(isr)).as(isr).isEqualTo("2");
    }
    assertThat(p.getProperty("unclean.leader.election.enable")).isEqualTo("false");
    assertThat(p.getProperty("auto.create.topics.enable")).isEqualTo("false");
  }

  @Test
  void aDedicatedControllerListensOnlyForTheQuorum() throws IOException {
    Properties p =
        load(
            KafkaServerConfig.clusterNode(
                options, new Node(103, Role.CONTROLLER, 3, Topology.DEDICATED), tmp));

    assertThat(p.getProperty("process.roles")).isEqualTo("controller");
    assertThat(p.getProperty("listeners")).isEqualTo("CONTROLLER://127.0.0.23:19093");
    assertThat(p.getProperty("inter.broker.listener.name")).isNull();
  }

  @Test
  void aNodeThatDoesNotFitItsTopologyIsRefused() {
    assertThatThrownBy(() -> new Node(2, Role.BROKER, 3, Topology.COMBINED))
        .hasMessageContaining("COMBINED");
    assertThatThrownBy(() -> new Node(4, Role.BROKER, 3, Topology.DEDICATED))
        .hasMessageContaining("no Kafka node 4");
    assertThatThrownBy(() -> new Node(1, Role.BROKER_AND_CONTROLLER, 2, Topology.COMBINED))
        .hasMessageContaining("1 or 3");
    assertThatThrownBy(() -> new KafkaCluster(options, 3, Topology.DEDICATED, 19094))
        .hasMessageContaining("single broker");
  }

  @Test
  void brokerCountAndTopologyComeFromPropertiesWithOneAndDedicatedWhenUnset() {
    assertThat(KafkaCluster.sizeFrom(k -> null, k -> null)).isEqualTo(1);
    assertThat(KafkaCluster.sizeFrom(k -> "3", k -> "1")).isEqualTo(3);
    assertThat(
            KafkaCluster.sizeFrom(
                k -> null, k -> k.equals("AMBER_LOCALRT_KAFKA_BROKERS") ? "3" : null))
        .isEqualTo(3);
    assertThatThrownBy(() -> KafkaCluster.sizeFrom(k -> "2", k -> null))
        .hasMessageContaining("amber.localrt.kafka.brokers must be 1 or 3");
    assertThat(KafkaCluster.topologyFrom(null)).isEqualTo(Topology.DEDICATED);
    assertThat(KafkaCluster.topologyFrom("combined")).isEqualTo(Topology.COMBINED);
    assertThatThrownBy(() -> KafkaCluster.topologyFrom("shared"))
        .hasMessageContaining("amber.localrt.kafka.controllers");
  }

  @Test
  void withGidsOnEachClusterProcessRunsUnderItsOwnGroupIdAndTheSingleBrokerNever() {
    KafkaCluster cluster = new KafkaCluster(options, 3, Topology.DEDICATED, 0);
    KafkaBroker single = new KafkaCluster(options, 1, 0).broker(1);
    assertThat(cluster.broker(2).launchPrefix()).isEmpty();
    System.setProperty(KafkaCluster.GIDS_PROPERTY, "true");
    try {
      assertThat(cluster.broker(2).launchPrefix())
          .containsExactly("setpriv", "--regid", "2102", "--clear-groups");
      assertThat(cluster.node(103).groupId()).isEqualTo(2203);
      assertThat(single.launchPrefix()).isEmpty();
    } finally {
      System.clearProperty(KafkaCluster.GIDS_PROPERTY);
    }
  }

  @Test
  void aPartitionHasRecoveredOnlyWithALeaderAndEveryReplicaInSync() {
    PartitionReplicas whole = partition(0, OptionalInt.of(1), List.of(1, 2, 3), List.of(3, 1, 2));
    PartitionReplicas shrunk = partition(1, OptionalInt.of(2), List.of(1, 2, 3), List.of(2, 3));
    PartitionReplicas leaderless =
        partition(2, OptionalInt.empty(), List.of(1, 2, 3), List.of(1, 2, 3));

    assertThat(whole.isFullyReplicated()).isTrue();
    assertThat(shrunk.isFullyReplicated()).isFalse();
    assertThat(shrunk.isInSync(1)).isFalse();
    assertThat(leaderless.isFullyReplicated()).isFalse();
    assertThat(PartitionReplicas.notFullyReplicated(List.of(whole, shrunk, leaderless)))
        .containsExactly(shrunk, leaderless);
    assertThat(leaderless.toString())
        .isEqualTo("t-2[leader none, replicas [1, 2, 3], isr [1, 2, 3]]");
  }

  private static PartitionReplicas partition(
      int p, OptionalInt leader, List<Integer> replicas, List<Integer> isr) {
    return new PartitionReplicas("t", p, leader, replicas, isr);
  }

  private static Properties load(String text) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(text));
    return p;
  }
}
