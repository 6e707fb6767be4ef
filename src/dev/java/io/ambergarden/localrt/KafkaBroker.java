package io.ambergarden.localrt;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeMetadataQuorumOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka 4.x process in KRaft mode ({@code kafka.Kafka} from {@code kafka_2.13}): the single
 * node (broker and controller) in {@code <base>/kafka} on 127.0.0.1, or one node of a {@link
 * KafkaCluster} (a broker, a controller, or both; see {@link KafkaServerConfig}) in {@code
 * <base>/kafka-x3[-dedicated]/broker<i>|controller<id>}. {@code server.properties} and {@code
 * log4j2.properties} are in {@code conf/}, the log segments and KRaft metadata in {@code data/},
 * everything the process prints in {@code kafka.log} ({@code kafka-2.log}, …).
 */
public final class KafkaBroker extends ServerProcess {
  public static final String MAIN_CLASS = "kafka.Kafka";
  private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);

  /** The SCRAM user of the SASL_SSL listener; its password is in {@code tls/scram.password}. */
  public static final String SCRAM_USER = "amber";

  private Admin probeAdmin;

  /** 0: no SASL_SSL listener. */
  private final int securePort;

  private final KafkaServerConfig.Node node;
  private final InetAddress address;

  public KafkaBroker(LocalRuntimeOptions options) {
    this(options, 0);
  }

  /**
   * A broker that also has a SASL_SSL listener (SCRAM-SHA-512, a throw-away CA) on {@code
   * securePort} when it is not 0, and enforces ACLs there: the PLAINTEXT listener's clients
   * (ANONYMOUS) stay super users, so nothing changes for them.
   */
  public KafkaBroker(LocalRuntimeOptions options, int securePort) {
    this(options, KafkaServerConfig.Node.single(), securePort);
  }

  /** One node of a cluster. */
  public KafkaBroker(LocalRuntimeOptions options, KafkaServerConfig.Node node) {
    this(options, node, 0);
  }

  private KafkaBroker(LocalRuntimeOptions options, KafkaServerConfig.Node node, int securePort) {
    super(options, dirOf(options, node));
    if (securePort != 0 && node.clusterSize() != 1) {
      throw new IllegalArgumentException("the SASL_SSL listener exists on the single broker only");
    }
    this.securePort = securePort;
    this.node = node;
    this.address = node.address();
  }

  static Path dirOf(LocalRuntimeOptions options, KafkaServerConfig.Node node) {
    return node.clusterSize() == 1
        ? options.kafkaDir()
        : clusterDir(options, node.topology()).resolve(node.dirName());
  }

  /**
   * {@code <base>/kafka-x3} (combined) or {@code <base>/kafka-x3-dedicated}: a cluster's nodes and
   * its shared cluster id; apart, since each topology formats its own quorum.
   */
  static Path clusterDir(LocalRuntimeOptions options, KafkaServerConfig.Topology topology) {
    return options
        .baseDir()
        .resolve(
            "kafka-x"
                + KafkaServerConfig.CLUSTER_SIZE
                + (topology == KafkaServerConfig.Topology.DEDICATED ? "-dedicated" : ""));
  }

  /** The KRaft node.id: 1..3 for brokers, 101..103 for dedicated controllers. */
  public int nodeId() {
    return node.nodeId();
  }

  /** Broker, controller, or both. */
  public KafkaServerConfig.Role role() {
    return node.role();
  }

  /** "127.0.0.1"; in a cluster 127.0.0.1i for broker i, 127.0.0.2i for controller 10i. */
  public String host() {
    return address.getHostAddress();
  }

  /** How a client reaches the SASL_SSL listener. */
  public record SecureAccess(
      String bootstrapServers,
      String username,
      String password,
      Path truststore,
      String truststorePassword) {
    @Override
    public String toString() {
      return "SecureAccess[" + bootstrapServers + ", user " + username + "]";
    }
  }

  /** The SASL_SSL listener's address and credentials; empty when the broker has none. */
  public java.util.Optional<SecureAccess> secureAccess() {
    if (securePort == 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new SecureAccess(
            host() + ":" + securePort,
            SCRAM_USER,
            readSecret("scram.password"),
            tlsDir().resolve("truststore.p12"),
            readSecret("store.password")));
  }

  private Path tlsDir() {
    return dir().resolve("tls");
  }

  private String readSecret(String name) {
    try {
      return Files.readString(tlsDir().resolve(name)).trim();
    } catch (IOException e) {
      throw new LocalRuntimeException("no " + name + " in " + tlsDir() + ": start the broker", e);
    }
  }

  /** A password kept in the tls dir, made once, so formatted storage and clients agree. */
  private String secret(String name) throws IOException {
    Path f = tlsDir().resolve(name);
    if (!Files.isRegularFile(f)) {
      byte[] random = new byte[18];
      new java.security.SecureRandom().nextBytes(random);
      Files.writeString(
          f, java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random));
    }
    return Files.readString(f).trim();
  }

  @Override
  protected String name() {
    return node.displayName();
  }

  @Override
  protected String mainClass() {
    return MAIN_CLASS;
  }

  /** "127.0.0.1:9092" (this broker only), for bootstrap.servers. */
  public String bootstrapServers() {
    if (!node.role().isBroker()) {
      throw new IllegalStateException(name() + " is a controller only: no broker listener");
    }
    return host() + ":" + options.kafkaPort();
  }

  /** The broker listener's port, the same on every broker's address. */
  public int port() {
    return options.kafkaPort();
  }

  /** "127.0.0.21:9093": this controller's listener. */
  public String controllerAddress() {
    if (!node.role().isController()) {
      throw new IllegalStateException(name() + " is a broker only: no controller listener");
    }
    return host() + ":" + options.kafkaControllerPort();
  }

  @Override
  protected InetAddress bindAddress(int port) {
    return address;
  }

  @Override
  protected Map<Integer, String> ports() {
    Map<Integer, String> ports = new LinkedHashMap<>();
    if (node.role().isBroker()) {
      ports.put(options.kafkaPort(), "broker port");
    }
    if (node.role().isController()) {
      ports.put(options.kafkaControllerPort(), "controller port");
    }
    if (securePort != 0) {
      ports.put(securePort, "SASL_SSL port");
    }
    return ports;
  }

  private Path conf() {
    return dir().resolve("conf");
  }

  private Path dataDir() {
    return dir().resolve("data");
  }

  @Override
  protected boolean isFresh() {
    return !Files.isRegularFile(dataDir().resolve("meta.properties"));
  }

  @Override
  protected MavenClasspath.Spec classpathSpec() {
    return MavenClasspath.Spec.of(options, "kafka", "kafka.version", options.kafkaVersion());
  }

  @Override
  protected void prepare(String classpath) throws IOException, InterruptedException {
    Files.createDirectories(conf());
    Files.createDirectories(dataDir());
    Files.createDirectories(dir().resolve("logs"));
    String properties = KafkaServerConfig.clusterNode(options, node, dataDir());
    String scram = null;
    if (securePort != 0) {
      Files.createDirectories(tlsDir());
      String storePassword = secret("store.password");
      scram = secret("scram.password");
      // a new CA and certificate on every start: nothing to expire between runs
      Certificates ca = Certificates.authority(tlsDir(), "Amber local Kafka CA", storePassword);
      Certificates.Issued broker = ca.issue("broker");
      properties = withSecureListener(properties, options, securePort, broker);
    }
    Files.writeString(conf().resolve("server.properties"), properties);
    Files.writeString(conf().resolve("log4j2.properties"), log4j2Properties());
    // KRaft storage is formatted once; formatting again would refuse (or lose the cluster id)
    if (isFresh()) {
      String clusterId =
          node.clusterSize() == 1
              ? Uuid.randomUuid().toString()
              : KafkaCluster.clusterId(clusterDir(options, node.topology()));
      log.info("Formatting Kafka storage in {} (cluster id {})", dataDir(), clusterId);
      runTool(
          classpath,
          commonJvmOptions(),
          STORAGE_TOOL,
          formatArguments(clusterId, scram),
          FORMAT_TIMEOUT);
    }
  }

  private List<String> formatArguments(String clusterId, String scramPassword) {
    List<String> args =
        list(
            "format",
            "--config",
            conf().resolve("server.properties").toString(),
            "--cluster-id",
            clusterId);
    if (node.clusterSize() == 1) {
      // a quorum of one, bootstrapped by this node alone; a cluster's voters are static
      args.add("--standalone");
    }
    if (scramPassword != null) {
      // the SCRAM user exists from the first start on
      args.add("--add-scram");
      args.add("SCRAM-SHA-512=[name=" + SCRAM_USER + ",password=" + scramPassword + "]");
    }
    return args;
  }

  /**
   * Storage formatted before the secure listener existed has no SCRAM user: adds (or updates) it
   * over the PLAINTEXT listener, whose clients are super users.
   */
  public void ensureScramUser() {
    SecureAccess access = secureAccess().orElseThrow();
    try (Admin admin = Admin.create(adminConfig(bootstrapServers()))) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                      access.username(),
                      new org.apache.kafka.clients.admin.ScramCredentialInfo(
                          org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096),
                      access.password())))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw failed("could not add the SCRAM user " + access.username() + ": " + e, e);
    }
  }

  /** server.properties with a SASL_SSL listener (SCRAM-SHA-512) and ACLs enforced on it. */
  static String withSecureListener(
      String plain, LocalRuntimeOptions o, int securePort, Certificates.Issued cert) {
    String plainListener = "PLAINTEXT://127.0.0.1:" + o.kafkaPort();
    String secure = plainListener + ",SASL_SSL://127.0.0.1:" + securePort;
    return plain
            .replace("listeners=" + plainListener, "listeners=" + secure)
            .replace(
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,"
                    + "SASL_SSL:SASL_SSL")
        + """

        # SASL_SSL listener for tests of the secured path: SCRAM-SHA-512 over TLS, host names verified
        sasl.enabled.mechanisms=SCRAM-SHA-512
        listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
        listener.name.sasl_ssl.ssl.keystore.type=PKCS12
        listener.name.sasl_ssl.ssl.keystore.location=%1$s
        listener.name.sasl_ssl.ssl.keystore.password=%2$s
        listener.name.sasl_ssl.ssl.key.password=%2$s
        listener.name.sasl_ssl.ssl.enabled.protocols=TLSv1.3,TLSv1.2
        # ACLs are enforced; PLAINTEXT and controller clients (ANONYMOUS) keep full rights
        authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
        super.users=User:ANONYMOUS
        allow.everyone.if.no.acl.found=false
        """
            .formatted(escape(cert.keystore().toString()), cert.password());
  }

  private List<String> commonJvmOptions() {
    return List.of(
        "-Dlog4j2.configurationFile=" + conf().resolve("log4j2.properties"),
        "-Dkafka.logs.dir=" + dir().resolve("logs"),
        "-Djava.awt.headless=true");
  }

  @Override
  protected List<String> jvmOptions() {
    // the heap and GC flags kafka-server-start.sh / kafka-run-class.sh use
    List<String> jvm =
        list(
            "-Xms" + heap(heapSize()),
            "-Xmx" + heap(heapSize()),
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-XX:MaxInlineLevel=15");
    jvm.addAll(commonJvmOptions());
    return jvm;
  }

  private String heapSize() {
    if (node.clusterSize() == 1) {
      return options.kafkaHeap();
    }
    return node.role().isBroker()
        ? KafkaCluster.heapFromSystemProperties()
        : KafkaCluster.controllerHeapFromSystemProperties();
  }

  /**
   * With {@code amber.localrt.kafka.gids=true} (root only) the process runs with group id 2100 +
   * node id (2101..2103 brokers, 2201..2203 controllers), still as root: {@code iptables -m owner
   * --gid-owner} can then cut one Kafka process from others although every one of them connects
   * from 127.0.0.1.
   */
  @Override
  protected List<String> launchPrefix() {
    List<String> set = super.launchPrefix();
    if (!set.isEmpty()
        || node.clusterSize() == 1
        || !Boolean.getBoolean(KafkaCluster.GIDS_PROPERTY)) {
      return set;
    }
    return List.of("setpriv", "--regid", Integer.toString(groupId()), "--clear-groups");
  }

  /** The group id this process runs with under {@code amber.localrt.kafka.gids=true}. */
  public int groupId() {
    return KafkaCluster.FIRST_GID + nodeId();
  }

  @Override
  protected List<String> programArguments() {
    return List.of(conf().resolve("server.properties").toString());
  }

  @Override
  protected void probe() throws Exception {
    if (node.role().isBroker()) {
      probeBroker();
    } else {
      probeController();
    }
  }

  /** Ready when this broker answers and the controllers have it registered. */
  private void probeBroker() throws Exception {
    if (!Ports.accepts(address, options.kafkaPort(), 500)) {
      throw new IllegalStateException("broker port " + bootstrapServers() + " not open yet");
    }
    if (probeAdmin == null) {
      probeAdmin = Admin.create(adminConfig(bootstrapServers()));
    }
    var nodes =
        probeAdmin
            .describeCluster(new DescribeClusterOptions().timeoutMs(3000))
            .nodes()
            .get(4, TimeUnit.SECONDS);
    // a cluster node answers before the quorum has it registered; ready means it sees itself
    if (nodes.stream().noneMatch(n -> n.id() == nodeId())) {
      throw new IllegalStateException("broker " + nodeId() + " not registered yet: " + nodes);
    }
    log.info(
        "Kafka answers on {} with brokers {}",
        bootstrapServers(),
        nodes.stream().map(Node::idString).toList());
  }

  /** Ready when this controller answers and knows the quorum's leader. */
  private void probeController() throws Exception {
    if (!Ports.accepts(address, options.kafkaControllerPort(), 500)) {
      throw new IllegalStateException("controller port " + controllerAddress() + " not open yet");
    }
    if (probeAdmin == null) {
      probeAdmin = Admin.create(controllerAdminConfig(controllerAddress()));
    }
    int leader;
    try {
      leader =
          probeAdmin
              .describeMetadataQuorum(new DescribeMetadataQuorumOptions().timeoutMs(3000))
              .quorumInfo()
              .get(4, TimeUnit.SECONDS)
              .leaderId();
    } catch (Exception e) {
      // an admin client that asked a controller before its metadata version allowed direct
      // access can keep timing out "waiting for a node assignment": the next probe starts afresh
      closeProbe();
      throw e;
    }
    if (leader < 0) {
      throw new IllegalStateException("controller " + nodeId() + " knows no quorum leader yet");
    }
    log.info("Kafka controller {} answers; quorum leader {}", controllerAddress(), leader);
  }

  /** Admin settings that reach the controllers directly (KIP-919), not through a broker. */
  static Properties controllerAdminConfig(String controllers) {
    Properties p = adminConfig(controllers);
    p.remove(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
    p.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, controllers);
    return p;
  }

  @Override
  protected void closeProbe() {
    if (probeAdmin != null) {
      probeAdmin.close(Duration.ofSeconds(2));
      probeAdmin = null;
    }
  }

  /** Admin client settings with short timeouts and reconnect backoff, good for probing. */
  public static Properties adminConfig(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
    p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
    p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "100");
    return p;
  }

  /** server.properties of the single combined broker+controller node on 127.0.0.1. */
  static String serverProperties(LocalRuntimeOptions o, Path dataDir) {
    return KafkaServerConfig.single(o, dataDir);
  }

  private static String escape(String value) {
    return KafkaServerConfig.escape(value);
  }

  /** The broker logs through log4j2 to stdout, i.e. into kafka.log. */
  static String log4j2Properties() {
    return """
        status = warn
        # Kafka logs its own shutdown from a JVM shutdown hook; log4j's hook would cut that short
        shutdownHook = disable
        appender.stdout.type = Console
        appender.stdout.name = STDOUT
        appender.stdout.layout.type = PatternLayout
        appender.stdout.layout.pattern = [%d] %p %m (%c)%n
        rootLogger.level = INFO
        rootLogger.appenderRef.stdout.ref = STDOUT
        # the request and state-change loggers are very chatty at INFO
        logger.request.name = kafka.request.logger
        logger.request.level = WARN
        logger.state.name = state.change.logger
        logger.state.level = WARN
        """;
  }
}
