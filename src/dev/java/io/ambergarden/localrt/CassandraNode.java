package io.ambergarden.localrt;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.loadbalancing.NodeDistance;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Cassandra 5.0 node ({@code CassandraDaemon} from {@code cassandra-all}). Alone, it lives
 * in {@code <base>/cassandra} on 127.0.0.1; as node i of an N-node {@link CassandraCluster} (ccm's
 * layout) in {@code <base>/cassandra-xN/node<i>} on 127.0.0.i, with the same CQL and storage ports
 * as its peers and its own JMX port (jmx.port + 100 (i - 1)). Config in {@code conf/}, data in
 * {@code data/}, {@code commitlog/} etc., everything the node prints in its log file.
 */
public final class CassandraNode extends ServerProcess {
  public static final String MAIN_CLASS = "org.apache.cassandra.service.CassandraDaemon";
  public static final String LOCAL_DATACENTER = "datacenter1";

  /** Flags from Cassandra's conf/jvm17-server.options; without them startup fails at once. */
  private static final List<String> JPMS_FLAGS =
      List.of(
          "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
          "--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
          "--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
          "--add-exports", "java.sql/java.sql=ALL-UNNAMED",
          "--add-exports", "java.base/java.lang.ref=ALL-UNNAMED",
          "--add-exports", "jdk.unsupported/sun.misc=ALL-UNNAMED",
          "--add-exports", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports", "jdk.attach/sun.tools.attach=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang.module=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.loader=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.reflect=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.math=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.module=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.util.jar=ALL-UNNAMED",
          "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
          "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens", "java.base/java.io=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens", "jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang=ALL-UNNAMED",
          "--add-opens", "java.base/java.util=ALL-UNNAMED");

  /** Vnodes per node; a cluster's tokens are spread evenly over all of them (ClusterTokens). */
  static final int NUM_TOKENS = 16;

  /** The default superuser of a node with PasswordAuthenticator. */
  public static final String SUPERUSER = "cassandra";

  private final int index;
  private final int clusterSize;
  private final InetAddress address;

  /** Null: no authentication, plain CQL. */
  private final Security security;

  /**
   * A node with PasswordAuthenticator, CassandraAuthorizer and client TLS only (no plain CQL), its
   * certificate signed by a throw-away CA: {@code node} is the node's keystore, {@code truststore}
   * what clients trust. The superuser is cassandra/cassandra, there at once.
   */
  public record Security(Certificates.Issued node, Path truststore, String storePassword) {}

  /** The one node of a one-node runtime. */
  public CassandraNode(LocalRuntimeOptions options) {
    this(options, 1, 1, null);
  }

  /** The one node of a one-node runtime, secured. */
  public CassandraNode(LocalRuntimeOptions options, Security security) {
    this(options, 1, 1, security);
  }

  /** Node {@code index} (1-based) of a cluster of {@code clusterSize} nodes. */
  public CassandraNode(LocalRuntimeOptions options, int index, int clusterSize) {
    this(options, index, clusterSize, null);
  }

  private CassandraNode(
      LocalRuntimeOptions options, int index, int clusterSize, Security security) {
    super(options, dirOf(options, index, clusterSize));
    if (index < 1 || index > clusterSize || clusterSize > CassandraCluster.MAX_NODES) {
      throw new IllegalArgumentException("no node " + index + " of " + clusterSize);
    }
    this.index = index;
    this.clusterSize = clusterSize;
    this.address = addressOf(index);
    this.security = security;
  }

  public java.util.Optional<Security> security() {
    return java.util.Optional.ofNullable(security);
  }

  static Path dirOf(LocalRuntimeOptions options, int index, int clusterSize) {
    return clusterSize == 1
        ? options.cassandraDir()
        : options.baseDir().resolve("cassandra-x" + clusterSize).resolve("node" + index);
  }

  /** 127.0.0.i: Linux routes all of 127/8 to lo, so no interface needs setting up. */
  static InetAddress addressOf(int index) {
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) index});
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected String name() {
    return clusterSize == 1 ? "Cassandra" : "Cassandra-" + index;
  }

  /** 1-based position in the cluster. */
  public int index() {
    return index;
  }

  /** "127.0.0.i". */
  public String host() {
    return address.getHostAddress();
  }

  /** This node's local JMX port (loopback only, whatever the listen address). */
  public int jmxPort() {
    return options.jmxPort() + 100 * (index - 1);
  }

  boolean isClusterNode() {
    return clusterSize > 1;
  }

  @Override
  protected String mainClass() {
    return MAIN_CLASS;
  }

  /** "127.0.0.i:9042", the form the service config and the driver take. */
  public String contactPoint() {
    return host() + ":" + options.cqlPort();
  }

  public int cqlPort() {
    return options.cqlPort();
  }

  @Override
  protected Map<Integer, String> ports() {
    Map<Integer, String> ports = new LinkedHashMap<>();
    ports.put(options.cqlPort(), "CQL port");
    ports.put(options.storagePort(), "storage port");
    ports.put(jmxPort(), "JMX port");
    return ports;
  }

  @Override
  protected InetAddress bindAddress(int port) {
    // local JMX binds loopback 127.0.0.1 on every node; the rest binds the node's own address
    return port == jmxPort() ? Ports.LOOPBACK : address;
  }

  @Override
  protected boolean isFresh() {
    return !Files.isDirectory(dir().resolve("data/system"));
  }

  @Override
  protected MavenClasspath.Spec classpathSpec() {
    return MavenClasspath.Spec.of(
        options, "cassandra", "cassandra.version", options.cassandraVersion());
  }

  @Override
  protected void prepare(String classpath) throws IOException {
    Path conf = Files.createDirectories(dir().resolve("conf"));
    for (String sub :
        List.of("data", "commitlog", "saved_caches", "hints", "cdc_raw", "logs", "triggers")) {
      Files.createDirectories(dir().resolve(sub));
    }
    // rewritten on every start so a port change in the options takes effect
    String yaml =
        isClusterNode()
            ? clusterYaml(options, dir(), index, clusterSize)
            : cassandraYaml(options, dir());
    Files.writeString(
        conf.resolve("cassandra.yaml"), security == null ? yaml : yaml + securedYaml(security));
    Files.writeString(conf.resolve("logback.xml"), logbackXml());
  }

  @Override
  protected List<String> jvmOptions() {
    Path conf = dir().resolve("conf");
    List<String> jvm =
        list(
            "-Xms" + heap(options.cassandraHeap()),
            "-Xmx" + heap(options.cassandraHeap()),
            // GC settings from jvm17-server.options
            "-XX:+UseG1GC",
            "-XX:+ParallelRefProcEnabled",
            "-XX:MaxTenuringThreshold=1",
            "-XX:G1HeapRegionSize=16m",
            "-XX:G1RSetUpdatingPauseTimePercent=5",
            "-XX:MaxGCPauseMillis=300",
            "-XX:InitiatingHeapOccupancyPercent=70",
            // general settings from jvm-server.options (AlwaysPreTouch left out: slower boot, more
            // RSS)
            "-Xss256k",
            "-XX:+UseThreadPriorities",
            "-XX:+UseTLAB",
            "-XX:+ResizeTLAB",
            "-XX:+PerfDisableSharedMem",
            "-Djava.net.preferIPv4Stack=true",
            // a node that ran out of heap must not limp on (Cassandra warns without one of these)
            "-XX:+ExitOnOutOfMemoryError",
            // assertions off: a dev/test node, and boots faster (RUNTIME-NOTES)
            "-da",
            "-Djdk.attach.allowAttachSelf=true",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-Dio.netty.allocator.useCacheForAllThreads=true",
            "-Dio.netty.allocator.maxOrder=11");
    jvm.addAll(JPMS_FLAGS);
    jvm.addAll(
        List.of(
            "-Dcassandra.config=" + conf.resolve("cassandra.yaml").toUri(),
            "-Dcassandra.storagedir=" + dir(),
            "-Dcassandra.logdir=" + dir().resolve("logs"),
            "-Dcassandra.triggers_dir=" + dir().resolve("triggers"),
            "-Dlogback.configurationFile=" + conf.resolve("logback.xml"),
            // without it the daemon closes stdout, and our log file stays empty
            "-Dcassandra-foreground=yes",
            "-Dcassandra.skip_wait_for_gossip_to_settle=0",
            // skips a 3-6 s memtable overhead estimate on every boot
            "-Dcassandra.memtable.row_overhead_size=125",
            "-Dcassandra.jmx.local.port=" + jmxPort(),
            "-Djava.rmi.server.hostname=127.0.0.1"));
    if (isClusterNode()) {
      // the first seed up would otherwise wait a full ring delay (30 s) for the others
      jvm.add("-Dcassandra.ring_delay_ms=5000");
    } else {
      // one node has no peers to tell about its shutdown; saves 2 s on every stop. Peers of a
      // cluster node must hear it, so a clean stop marks it down at once.
      jvm.add("-Dcassandra.shutdown_announce_in_ms=0");
    }
    if (security != null) {
      // the default superuser is created at once instead of after 10 s
      jvm.add("-Dcassandra.superuser_setup_delay_ms=0");
    }
    return jvm;
  }

  @Override
  protected List<String> programArguments() {
    return List.of();
  }

  @Override
  protected void probe() throws Exception {
    // cheap TCP check first: the driver logs a warning for every refused connection
    if (!Ports.accepts(address, options.cqlPort(), 500)) {
      throw new IllegalStateException("CQL port " + contactPoint() + " not open yet");
    }
    // this node only: a peer that answers says nothing about this one
    try (CqlSession session =
        security == null
            ? openSession(Duration.ofSeconds(5), null, null, true)
            : openSession(Duration.ofSeconds(5), SUPERUSER, SUPERUSER, true)) {
      Row row = session.execute("SELECT release_version FROM system.local").one();
      if (row == null) {
        throw new IllegalStateException("system.local returned no row");
      }
      log.info("Cassandra {} answers on {}", row.getString("release_version"), contactPoint());
    }
  }

  /**
   * A driver session with this node as contact point (it finds the peers of a cluster too); used by
   * the probe, handy in tests. Caller closes it.
   */
  public CqlSession openSession(Duration requestTimeout) {
    return openSession(requestTimeout, null, null, false);
  }

  /** A session as {@code user} (over TLS when the node is secured); caller closes it. */
  public CqlSession openSession(Duration requestTimeout, String user, String password) {
    return openSession(requestTimeout, user, password, false);
  }

  /**
   * A session that, with {@code thisNodeOnly}, ignores every peer: its requests are coordinated by
   * this node (which may still read from or write to peer replicas).
   */
  public CqlSession openSession(Duration requestTimeout, boolean thisNodeOnly) {
    return openSession(requestTimeout, null, null, thisNodeOnly);
  }

  private CqlSession openSession(
      Duration requestTimeout, String user, String password, boolean thisNodeOnly) {
    DriverConfigLoader config =
        DriverConfigLoader.programmaticBuilder()
            .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, Duration.ofSeconds(2))
            .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(5))
            .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, Duration.ofSeconds(5))
            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, requestTimeout)
            .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, requestTimeout)
            // the default 2 s quiet period would make every close (and so every probe) 2 s slower
            .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 0)
            .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 0)
            .build();
    InetSocketAddress self = new InetSocketAddress(address, options.cqlPort());
    var builder =
        CqlSession.builder()
            .addContactPoint(self)
            .withLocalDatacenter(LOCAL_DATACENTER)
            .withConfigLoader(config);
    if (thisNodeOnly) {
      builder.withNodeDistanceEvaluator(
          (node, localDc) ->
              self.equals(node.getEndPoint().resolve()) ? null : NodeDistance.IGNORED);
    }
    if (user != null) {
      builder.withAuthCredentials(user, password);
    }
    if (security != null) {
      builder.withSslContext(clientTls(security));
    }
    return builder.build();
  }

  /** A JMX connection to this node (nodetool's interface, in-process). Caller closes it. */
  public NodeJmx jmx() {
    return NodeJmx.connect(jmxPort());
  }

  /**
   * Runs {@code nodetool <args>} against this node and returns what it printed; fails on a non-zero
   * exit. Takes a JVM start (a few seconds).
   */
  public String nodetool(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx128m");
    cmd.addAll(JPMS_FLAGS);
    cmd.addAll(List.of("-cp", classpath(), "org.apache.cassandra.tools.NodeTool"));
    cmd.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(jmxPort())));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new LocalRuntimeException("nodetool " + List.of(args) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new LocalRuntimeException("could not run nodetool: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalRuntimeException("interrupted while running nodetool", e);
    }
  }

  private static javax.net.ssl.SSLContext clientTls(Security s) {
    try (var in = Files.newInputStream(s.truststore())) {
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(in, s.storePassword().toCharArray());
      javax.net.ssl.TrustManagerFactory tmf =
          javax.net.ssl.TrustManagerFactory.getInstance(
              javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new LocalRuntimeException("cannot read " + s.truststore() + ": " + e, e);
    }
  }

  /** Authentication, authorization and client TLS (PKCS12), for a secured node. */
  static String securedYaml(Security s) {
    return """

        # secured node: passwords, roles and permissions, and TLS only for clients
        authenticator: PasswordAuthenticator
        authorizer: CassandraAuthorizer
        role_manager: CassandraRoleManager
        client_encryption_options:
          enabled: true
          optional: false
          keystore: '%1$s'
          keystore_password: '%2$s'
          truststore: '%3$s'
          truststore_password: '%2$s'
          store_type: PKCS12
          require_client_auth: false
          accepted_protocols: [TLSv1.3, TLSv1.2]
        """
        .formatted(
            s.node().keystore().toAbsolutePath().toString().replace("'", "''"),
            s.storePassword().replace("'", "''"),
            s.truststore().toAbsolutePath().toString().replace("'", "''"));
  }

  /**
   * A one-node cassandra.yaml. Cassandra rejects unknown keys, so only 5.0 names are used. Settings
   * not listed keep Cassandra's built-in defaults.
   */
  static String cassandraYaml(LocalRuntimeOptions o, Path dir) {
    return """
        # Generated by io.ambergarden.localrt.CassandraNode on every start; edits are overwritten.
        cluster_name: 'amber-local'
        num_tokens: %4$d
        # allocate_tokens_for_local_replication_factor is deliberately unset: it adds ~30 s to the first boot
        partitioner: org.apache.cassandra.dht.Murmur3Partitioner
        endpoint_snitch: SimpleSnitch
        seed_provider:
          - class_name: org.apache.cassandra.locator.SimpleSeedProvider
            parameters:
              - seeds: "127.0.0.1:%2$d"
        listen_address: 127.0.0.1
        rpc_address: 127.0.0.1
        storage_port: %2$d
        native_transport_port: %1$d
        start_native_transport: true

        data_file_directories:
          - '%3$s/data'
        commitlog_directory: '%3$s/commitlog'
        saved_caches_directory: '%3$s/saved_caches'
        hints_directory: '%3$s/hints'
        cdc_raw_directory: '%3$s/cdc_raw'

        commitlog_sync: periodic
        commitlog_sync_period: 10000ms
        commitlog_segment_size: 32MiB
        commitlog_total_space: 1024MiB
        # Largest mutation, and so (by default) largest CQL message, the node accepts; Cassandra's
        # default is half a commitlog segment (16 MiB). Lowered so that a valid event with a large
        # payload (event.max-payload-bytes raised towards 1 MiB) is one the store rejects, as a
        # production cluster with its own limits would, and the StoreRejected path runs for real.
        # Batches of events within the default limits stay below it; a bigger batch is refused and
        # the Kafka consumer then writes its records one by one.
        max_mutation_size: 768KiB

        # the default provider needs Amazon Corretto Crypto Provider, which ships only in the tarball
        crypto_provider:
          - class_name: org.apache.cassandra.security.JREProvider

        # dev/CI: no snapshot on every DROP/TRUNCATE, one compactor, small memtables (the benchmark
        # can raise them and pick them: amber.localrt.cassandra.memtable[.kind|.allocation])
        auto_snapshot: false
        concurrent_compactors: 1
        %5$s%6$s"""
        .formatted(
            o.cqlPort(),
            o.storagePort(),
            dir.toAbsolutePath().toString().replace("'", "''"),
            NUM_TOKENS,
            o.cassandraMemtable().yaml(),
            requestThreadsYaml(o.cassandraRequestThreads()));
  }

  /**
   * Cassandra sizes its request pools for many cores (32 concurrent reads and writes, 128 native
   * transport threads); {@code threads > 0} sizes all of them to that, so the benchmark can measure
   * a node sized to its cores. 0 keeps the defaults.
   */
  static String requestThreadsYaml(int threads) {
    if (threads == 0) {
      return "";
    }
    return """
        concurrent_reads: %1$d
        concurrent_writes: %1$d
        concurrent_counter_writes: %1$d
        native_transport_max_threads: %1$d
        """
        .formatted(threads);
  }

  /**
   * Node {@code index} of a ccm-style cluster: the one-node recipe on 127.0.0.i, every node a seed,
   * no bootstrap (a new cluster has no data to stream), and tokens spread evenly over the nodes so
   * each owns the same share whatever the replication.
   */
  static String clusterYaml(LocalRuntimeOptions o, Path dir, int index, int size) {
    String host = addressOf(index).getHostAddress();
    StringBuilder seeds = new StringBuilder();
    for (int i = 1; i <= size; i++) {
      seeds.append(i == 1 ? "" : ",").append(addressOf(i).getHostAddress()).append(':');
      seeds.append(o.storagePort());
    }
    return cassandraYaml(o, dir)
        .replace("# Generated by", "# Node " + index + " of " + size + ". Generated by")
        .replace("- seeds: \"127.0.0.1:" + o.storagePort() + "\"", "- seeds: \"" + seeds + "\"")
        .replace("listen_address: 127.0.0.1", "listen_address: " + host)
        .replace("rpc_address: 127.0.0.1", "rpc_address: " + host)
        .replace(
            "num_tokens: " + NUM_TOKENS,
            "num_tokens: "
                + NUM_TOKENS
                + "\ninitial_token: "
                + String.join(",", ClusterTokens.of(index, size, NUM_TOKENS))
                + "\nauto_bootstrap: false");
  }

  /** cassandra-all ships no logback.xml; everything goes to stdout, which is our log file. */
  static String logbackXml() {
    return """
        <configuration scan="false">
          <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder>
              <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
            </encoder>
          </appender>
          <root level="INFO">
            <appender-ref ref="STDOUT"/>
          </root>
          <logger name="org.apache.cassandra" level="INFO"/>
          <logger name="com.datastax" level="WARN"/>
        </configuration>
        """;
  }
}
