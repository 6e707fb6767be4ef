package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure parts of the local runtime: options, generated configs, ports, log tail, pid checks. */
class LocalRuntimeSupportTest {
  @TempDir Path tmp;

  @Test
  void systemPropertyBeatsEnvironmentBeatsBase() {
    Map<String, String> props =
        Map.of("amber.localrt.cql.port", "19142", "amber.localrt.stop.timeout", "5s");
    Map<String, String> env =
        Map.of(
            "AMBER_LOCALRT_CQL_PORT",
            "29042",
            "AMBER_LOCALRT_KAFKA_PORT",
            "29092",
            "AMBER_LOCALRT_DIR",
            tmp.toString(),
            "AMBER_LOCALRT_CASSANDRA_HEAP",
            "2G",
            "AMBER_LOCALRT_STARTUP_TIMEOUT",
            "2m");
    LocalRuntimeOptions o = LocalRuntimeOptions.defaults().overriddenBy(props::get, env::get);

    assertThat(o.cqlPort()).isEqualTo(19142);
    assertThat(o.kafkaPort()).isEqualTo(29092);
    assertThat(o.baseDir()).isEqualTo(tmp);
    assertThat(o.cassandraHeap()).isEqualTo("2G");
    assertThat(o.startupTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.stopTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(o.storagePort()).isEqualTo(7000);
    assertThat(o.kafkaControllerPort()).isEqualTo(9093);
    assertThat(o.cassandraVersion()).isEqualTo("5.0.6");
    assertThat(o.kafkaVersion()).isEqualTo("4.1.2");
  }

  @Test
  void envNamesAndDurations() {
    assertThat(LocalRuntimeOptions.envName("amber.localrt.kafka.controller.port"))
        .isEqualTo("AMBER_LOCALRT_KAFKA_CONTROLLER_PORT");
    assertThat(LocalRuntimeOptions.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(LocalRuntimeOptions.parseDuration("90")).isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> LocalRuntimeOptions.parseDuration("soon"))
        .hasMessageContaining("soon");
  }

  @Test
  void invalidPortIsRejectedWithItsName() {
    Map<String, String> props = Map.of("amber.localrt.kafka.port", "99999");
    assertThatThrownBy(() -> LocalRuntimeOptions.defaults().overriddenBy(props::get, k -> null))
        .hasMessageContaining("amber.localrt.kafka.port")
        .hasMessageContaining("99999");
  }

  @Test
  void memtableSpaceIsSmallByDefaultAndCanBeRaised() {
    assertThat(CassandraNode.cassandraYaml(LocalRuntimeOptions.defaults(), tmp))
        .contains("memtable_heap_space: 64MiB", "memtable_offheap_space: 64MiB");
    Map<String, String> props = Map.of("amber.localrt.cassandra.memtable", "256MiB");
    LocalRuntimeOptions raised = LocalRuntimeOptions.defaults().overriddenBy(props::get, k -> null);
    assertThat(CassandraNode.cassandraYaml(raised, tmp))
        .contains("memtable_heap_space: 256MiB", "memtable_offheap_space: 256MiB");
  }

  @Test
  void memtablesAreSkipListsOnHeapByDefaultAndCanBeTriesOffHeap() {
    assertThat(CassandraNode.cassandraYaml(LocalRuntimeOptions.defaults(), tmp))
        .contains(
            "memtable_allocation_type: heap_buffers\n",
            "memtable:\n  configurations:\n    default:\n      class_name: SkipListMemtable\n");
    Map<String, String> props =
        Map.of(
            "amber.localrt.cassandra.memtable.kind", "Trie",
            "amber.localrt.cassandra.memtable.allocation", "offheap_objects");
    LocalRuntimeOptions trie = LocalRuntimeOptions.defaults().overriddenBy(props::get, k -> null);
    assertThat(CassandraNode.cassandraYaml(trie, tmp))
        .contains(
            "memtable_allocation_type: offheap_objects\n",
            "      class_name: TrieMemtable\n",
            "memtable_heap_space: 64MiB");
    assertThat(trie.cassandraMemtable()).hasToString("TrieMemtable, offheap_objects, 64MiB");
    Map<String, String> wrong = Map.of("amber.localrt.cassandra.memtable.allocation", "native");
    assertThatThrownBy(() -> LocalRuntimeOptions.defaults().overriddenBy(wrong::get, k -> null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("amber.localrt.cassandra.memtable.allocation")
        .hasMessageContaining("offheap_objects")
        .hasMessageContaining("native");
  }

  @Test
  void benchmarksRunProductionLikeMemtablesAndKeepTheOverrides() {
    LocalRuntimeOptions bench = LocalRuntimeOptions.defaults(CassandraMemtable.PRODUCTION_LIKE);
    assertThat(CassandraNode.cassandraYaml(bench, tmp))
        .contains(
            "memtable_heap_space: 256MiB",
            "memtable_allocation_type: offheap_objects\n",
            "      class_name: TrieMemtable\n");
    Map<String, String> props = Map.of("amber.localrt.cassandra.memtable.kind", "skiplist");
    assertThat(bench.overriddenBy(props::get, k -> null).cassandraMemtable())
        .hasToString("SkipListMemtable, offheap_objects, 256MiB");
    assertThat(LocalRuntimeOptions.defaults().cassandraMemtable())
        .hasToString("SkipListMemtable, heap_buffers, 64MiB");
  }

  @Test
  void requestPoolsKeepCassandraDefaultsUnlessSizedByOneSetting() {
    String defaults = CassandraNode.cassandraYaml(LocalRuntimeOptions.defaults(), tmp);
    assertThat(defaults).doesNotContain("concurrent_writes", "native_transport_max_threads");
    Map<String, String> props = Map.of("amber.localrt.cassandra.request-threads", "16");
    LocalRuntimeOptions sized = LocalRuntimeOptions.defaults().overriddenBy(props::get, k -> null);
    assertThat(sized.cassandraRequestThreads()).isEqualTo(16);
    assertThat(CassandraNode.cassandraYaml(sized, tmp))
        .contains(
            "\nconcurrent_reads: 16\n",
            "\nconcurrent_writes: 16\n",
            "\nconcurrent_counter_writes: 16\n",
            "\nnative_transport_max_threads: 16\n");
    assertThat(sized.withKafkaPort(19092).cassandraRequestThreads()).isEqualTo(16);
    Map<String, String> wrong = Map.of("amber.localrt.cassandra.request-threads", "-4");
    assertThatThrownBy(() -> LocalRuntimeOptions.defaults().overriddenBy(wrong::get, k -> null))
        .hasMessageContaining("amber.localrt.cassandra.request-threads")
        .hasMessageContaining("-4");
  }

  @Test
  void cassandraYamlFollowsTheOneNodeRecipe() {
    LocalRuntimeOptions o =
        LocalRuntimeOptions.defaults().withCqlPort(19042).withStoragePort(17000);
    String yaml = CassandraNode.cassandraYaml(o, tmp);

    assertThat(yaml)
        .contains(
            "native_transport_port: 19042",
            "storage_port: 17000",
            "- seeds: \"127.0.0.1:17000\"",
            "listen_address: 127.0.0.1",
            "rpc_address: 127.0.0.1",
            "num_tokens: 16",
            "class_name: org.apache.cassandra.security.JREProvider",
            "auto_snapshot: false",
            "org.apache.cassandra.locator.SimpleSeedProvider")
        .contains(
            "'" + tmp + "/data'",
            "commitlog_directory: '" + tmp + "/commitlog'",
            "saved_caches_directory: '" + tmp + "/saved_caches'",
            "hints_directory: '" + tmp + "/hints'",
            "cdc_raw_directory: '" + tmp + "/cdc_raw'");
    // only mentioned in a comment: setting it costs ~30 s on first boot
    assertThat(yaml.lines().filter(l -> !l.trim().startsWith("#")))
        .noneMatch(l -> l.contains("allocate_tokens_for_local_replication_factor"));
    assertThat(yaml).doesNotContain("\t");
  }

  @Test
  void clusterNodeYamlFollowsCcm() {
    LocalRuntimeOptions o =
        LocalRuntimeOptions.defaults().withCqlPort(19142).withStoragePort(17100).withJmxPort(17300);
    String yaml = CassandraNode.clusterYaml(o, tmp, 2, 3);

    assertThat(yaml)
        .contains(
            "native_transport_port: 19142",
            "storage_port: 17100",
            "- seeds: \"127.0.0.1:17100,127.0.0.2:17100,127.0.0.3:17100\"",
            "listen_address: 127.0.0.2",
            "rpc_address: 127.0.0.2",
            "num_tokens: 16",
            "auto_bootstrap: false",
            "initial_token: " + String.join(",", ClusterTokens.of(2, 3, 16)));
    assertThat(yaml).doesNotContain("127.0.0.1:17100\"\n");
    CassandraNode node = new CassandraNode(o, 3, 3);
    assertThat(node.host()).isEqualTo("127.0.0.3");
    assertThat(node.contactPoint()).isEqualTo("127.0.0.3:19142");
    assertThat(node.jmxPort()).isEqualTo(17500);
    assertThat(node.dir()).isEqualTo(o.baseDir().resolve("cassandra-x3/node3"));
    // alone, a node keeps the one-node layout and ports
    CassandraNode single = new CassandraNode(o);
    assertThat(single.dir()).isEqualTo(o.cassandraDir());
    assertThat(single.jmxPort()).isEqualTo(17300);
    assertThat(single.contactPoint()).isEqualTo("127.0.0.1:19142");
  }

  @Test
  void clusterTokensCutTheRingEvenlyAndInterleaveTheNodes() {
    List<java.math.BigInteger> all =
        IntStream.rangeClosed(1, 3)
            .boxed()
            .flatMap(i -> ClusterTokens.of(i, 3, 16).stream())
            .map(java.math.BigInteger::new)
            .sorted()
            .toList();
    assertThat(all).hasSize(48).doesNotHaveDuplicates();
    assertThat(all.get(0)).isEqualTo(java.math.BigInteger.valueOf(Long.MIN_VALUE));
    java.math.BigInteger step = all.get(1).subtract(all.get(0));
    for (int k = 1; k < all.size(); k++) {
      // equal ranges (integer division leaves at most one token of slack)
      assertThat(all.get(k).subtract(all.get(k - 1)).subtract(step).abs())
          .isLessThanOrEqualTo(java.math.BigInteger.ONE);
    }
    assertThat(all.get(47)).isLessThan(java.math.BigInteger.valueOf(Long.MAX_VALUE));
    // node 1 holds every third token starting with the first
    assertThat(ClusterTokens.of(1, 3, 16).get(1)).isEqualTo(all.get(3).toString());
    assertThatThrownBy(() -> ClusterTokens.of(4, 3, 16))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void clusterSizeComesFromPropertyThenEnvironmentAndIsBounded() {
    assertThat(CassandraCluster.sizeFrom(k -> null, k -> null)).isEqualTo(1);
    assertThat(
            CassandraCluster.sizeFrom(
                k -> null, k -> k.equals("AMBER_LOCALRT_CASSANDRA_NODES") ? "3" : null))
        .isEqualTo(3);
    assertThat(CassandraCluster.sizeFrom(k -> "2", k -> "3")).isEqualTo(2);
    assertThatThrownBy(() -> CassandraCluster.sizeFrom(k -> "0", k -> null))
        .hasMessageContaining("amber.localrt.cassandra.nodes");
    assertThatThrownBy(() -> CassandraCluster.sizeFrom(k -> "three", k -> null))
        .hasMessageContaining("three");
    LocalRuntimeOptions o = LocalRuntimeOptions.defaults().withCqlPort(19142);
    CassandraCluster three = new CassandraCluster(o, 3);
    assertThat(three.contactPoints()).isEqualTo("127.0.0.1:19142,127.0.0.2:19142,127.0.0.3:19142");
    assertThat(three.replication()).isEqualTo("NetworkTopologyStrategy:datacenter1=3");
    assertThat(new CassandraCluster(o, 1).replication()).isEqualTo("SimpleStrategy:1");
  }

  @Test
  void kafkaPropertiesDescribeAStandaloneKraftNode() throws IOException {
    LocalRuntimeOptions o =
        LocalRuntimeOptions.defaults().withKafkaPort(19092).withKafkaControllerPort(19093);
    Properties p = new Properties();
    p.load(new StringReader(KafkaBroker.serverProperties(o, tmp.resolve("data"))));

    assertThat(p.getProperty("process.roles")).isEqualTo("broker,controller");
    assertThat(p.getProperty("controller.quorum.bootstrap.servers")).isEqualTo("127.0.0.1:19093");
    assertThat(p.getProperty("listeners"))
        .isEqualTo("PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093");
    assertThat(p.getProperty("controller.listener.names")).isEqualTo("CONTROLLER");
    assertThat(p.getProperty("log.dirs")).isEqualTo(tmp.resolve("data").toString());
    assertThat(p.getProperty("auto.create.topics.enable")).isEqualTo("false");
    assertThat(p.getProperty("group.initial.rebalance.delay.ms")).isEqualTo("0");
    for (String rf :
        List.of(
            "offsets.topic.replication.factor",
            "transaction.state.log.replication.factor",
            "transaction.state.log.min.isr",
            "share.coordinator.state.topic.replication.factor",
            "share.coordinator.state.topic.min.isr")) {
      assertThat(p.getProperty(rf)).as(rf).isEqualTo("1");
    }
  }

  @Test
  void takenPortIsReportedWithPortAndServer() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(Ports.LOOPBACK, 0));
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> Ports.requireFree(port, "Cassandra CQL port"))
          .isInstanceOf(LocalRuntimeException.class)
          .hasMessageContaining("Port " + port)
          .hasMessageContaining("Cassandra CQL port");
      assertThat(Ports.accepts(port, 500)).isTrue();
    }
  }

  @Test
  void freePortPasses() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Ports.requireFree(port, "test");
  }

  @Test
  void logTailReturnsTheLastLines() throws IOException {
    Path log = tmp.resolve("server.log");
    Files.write(
        log, IntStream.rangeClosed(1, 100).mapToObj(i -> "line " + i).collect(Collectors.toList()));

    assertThat(LogTail.lastLines(log, 3)).containsExactly("line 98", "line 99", "line 100");
    assertThat(LogTail.lastLines(log, 500)).hasSize(100);
    assertThat(LogTail.lastLines(tmp.resolve("missing.log"), 40)).isEmpty();
    assertThat(LogTail.describe(log, 2)).contains("line 99\nline 100").contains(log.toString());
  }

  @Test
  void logTailLeavesOutEarlierRuns() throws IOException {
    Path log = tmp.resolve("server.log");
    Files.write(log, List.of("old run", "===== localrt: starting X at now =====", "Error: boom"));

    assertThat(LogTail.describe(log, 40, "===== localrt: starting "))
        .contains("Error: boom")
        .doesNotContain("old run")
        .contains("last 1 lines");
  }

  @Test
  void logTailOfAHugeFileReadsOnlyTheEnd() throws IOException {
    Path log = tmp.resolve("big.log");
    String line = "x".repeat(1000);
    Files.write(log, IntStream.range(0, 1000).mapToObj(i -> line + i).collect(Collectors.toList()));

    List<String> tail = LogTail.lastLines(log, 40);
    assertThat(tail).hasSize(40).last().isEqualTo(line + 999);
  }

  @Test
  void staleProcessMatchNeedsMainClassAndOurDir() {
    Path dir = tmp.resolve("cassandra");
    List<String> ours =
        List.of(
            "/usr/bin/java",
            "-Dcassandra.storagedir=" + dir,
            "-cp",
            "a.jar",
            CassandraNode.MAIN_CLASS);
    assertThat(Procs.matches(ours, CassandraNode.MAIN_CLASS, dir)).isTrue();
    assertThat(Procs.matches(ours, KafkaBroker.MAIN_CLASS, dir)).isFalse();
    assertThat(Procs.matches(ours, CassandraNode.MAIN_CLASS, tmp.resolve("other"))).isFalse();
    assertThat(Procs.commandLine(ProcessHandle.current().pid())).isNotEmpty();
    assertThat(Procs.residentKb(ProcessHandle.current().pid()))
        .hasValueSatisfying(kb -> assertThat(kb).isPositive());
  }

  @Test
  void classpathCacheIsStaleWhenOlderThanThePomOrAJarIsGone() throws IOException {
    Path pom = Files.writeString(tmp.resolve("pom.xml"), "<project/>");
    Path jar = Files.writeString(tmp.resolve("a.jar"), "");
    Path cache = Files.writeString(tmp.resolve("x.classpath"), jar.toString());
    Files.setLastModifiedTime(pom, FileTime.fromMillis(1_000_000));
    Files.setLastModifiedTime(cache, FileTime.fromMillis(2_000_000));
    assertThat(MavenClasspath.isFresh(cache, pom)).isTrue();

    Files.setLastModifiedTime(pom, FileTime.fromMillis(3_000_000));
    assertThat(MavenClasspath.isFresh(cache, pom)).isFalse();

    Files.setLastModifiedTime(pom, FileTime.fromMillis(1_000_000));
    Files.delete(jar);
    assertThat(MavenClasspath.isFresh(cache, pom)).isFalse();
    assertThat(MavenClasspath.isFresh(tmp.resolve("missing.classpath"), pom)).isFalse();
  }

  @Test
  void theStaleServersResolveInOneMavenCallOneThreadEach() throws IOException {
    LocalRuntimeOptions o = LocalRuntimeOptions.defaults().withBaseDir(tmp);
    MavenClasspath.Spec cassandra =
        MavenClasspath.Spec.of(o, "cassandra", "cassandra.version", "5.0.6");
    MavenClasspath.Spec kafka = MavenClasspath.Spec.of(o, "kafka", "kafka.version", "4.1.2");
    Path reactor = cassandra.pom().resolveSibling(MavenClasspath.REACTOR_POM);

    List<String> command = MavenClasspath.command(reactor, List.of(cassandra, kafka));

    assertThat(String.join(" ", command))
        .contains("-T 2 -f " + reactor + " -pl :localrt-cassandra,:localrt-kafka")
        .contains("-Dcassandra.version=5.0.6")
        .contains("-Dcassandra.classpath.file=" + tmp.resolve("cassandra-5.0.6.classpath"))
        .contains("-Dkafka.version=4.1.2")
        .contains("-Dkafka.classpath.file=" + tmp.resolve("kafka-4.1.2.classpath"));
    // the reactor lists every server pom, and each writes the file the runtime reads
    String reactorPom = Files.readString(reactor);
    for (String name : List.of("cassandra", "kafka", "s3proxy")) {
      assertThat(reactorPom).contains("<module>" + name + "-pom.xml</module>");
      assertThat(Files.readString(reactor.resolveSibling(name + "-pom.xml")))
          .contains("<artifactId>localrt-" + name + "</artifactId>")
          .contains("<outputFile>${" + name + ".classpath.file}</outputFile>");
    }
  }

  @Test
  void wipeRefusesNothingWhenStoppedAndDeletesTheDataDirs() throws IOException {
    LocalRuntimeOptions o = LocalRuntimeOptions.defaults().withBaseDir(tmp);
    Files.createDirectories(o.cassandraDir().resolve("data/system"));
    Files.createDirectories(o.kafkaDir().resolve("data"));
    Path classpathCache = Files.writeString(tmp.resolve("cassandra-5.0.6.classpath"), "x");
    // a pid file of a process that is not our server must not block the wipe
    Files.writeString(
        o.cassandraDir().resolve("cassandra.pid"), Long.toString(ProcessHandle.current().pid()));

    LocalRuntime.wipe(o);

    assertThat(o.cassandraDir()).doesNotExist();
    assertThat(o.kafkaDir()).doesNotExist();
    assertThat(classpathCache).exists();
  }
}
