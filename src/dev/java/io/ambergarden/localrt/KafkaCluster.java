package io.ambergarden.localrt;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local Kafka: one broker on 127.0.0.1 (the default), or three brokers on 127.0.0.11..13 with
 * RF 3 and min ISR 2 and a KRaft quorum of three controllers, dedicated ones on 127.0.0.21..23 (the
 * default) or inside the brokers (see {@link KafkaServerConfig}).
 *
 * <p>Fault operations act on one process by its node id ({@link #kill}, {@link #stop}, {@link
 * #pause}, {@link #resume}, {@link #start(int)}); {@link KafkaClusterAdmin} says which broker leads
 * a partition and which controller is active.
 */
public final class KafkaCluster {
  /** {@code amber.localrt.kafka.brokers}: 1 (default) or 3. */
  public static final String BROKERS_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.brokers";

  /** {@code amber.localrt.kafka.controllers}: dedicated (default) or combined. */
  public static final String TOPOLOGY_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.controllers";

  /** {@code amber.localrt.kafka.cluster.heap}: each cluster broker's heap. */
  public static final String HEAP_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.cluster.heap";

  /** {@code amber.localrt.kafka.controller.heap}: each dedicated controller's heap. */
  public static final String CONTROLLER_HEAP_PROPERTY =
      LocalRuntimeOptions.PREFIX + "kafka.controller.heap";

  /**
   * {@code amber.localrt.kafka.gids=true}: each cluster process runs with its own group id, {@link
   * #FIRST_GID} + node id, for iptables owner rules (see {@link KafkaBroker#groupId()}).
   */
  public static final String GIDS_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.gids";

  public static final int FIRST_GID = 2100;

  static final String DEFAULT_CLUSTER_HEAP = "256M";
  static final String DEFAULT_CONTROLLER_HEAP = "128M";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);

  private final LocalRuntimeOptions options;
  private final KafkaServerConfig.Topology topology;
  private final int size;

  /** Every process: the brokers, then the dedicated controllers if any. */
  private final List<KafkaBroker> nodes;

  private volatile Duration lastStartDuration;

  /**
   * One broker (with a SASL_SSL listener on {@code securePort} unless 0), or three with the
   * controllers amber.localrt.kafka.controllers asks for.
   */
  public KafkaCluster(LocalRuntimeOptions options, int size, int securePort) {
    this(options, size, topologyFromSystemProperties(), securePort);
  }

  public KafkaCluster(
      LocalRuntimeOptions options, int size, KafkaServerConfig.Topology topology, int securePort) {
    if (size != 1 && securePort != 0) {
      throw new IllegalArgumentException(
          "the SASL_SSL listener exists on the single broker only, not with " + size);
    }
    this.options = options;
    this.size = size;
    this.topology = size == 1 ? KafkaServerConfig.Topology.COMBINED : topology;
    List<KafkaBroker> list = new ArrayList<>();
    if (size == 1) {
      list.add(new KafkaBroker(options, securePort));
    } else {
      KafkaServerConfig.nodes(size, topology).forEach(n -> list.add(new KafkaBroker(options, n)));
    }
    this.nodes = List.copyOf(list);
  }

  /** amber.localrt.kafka.controllers: "dedicated" (also when unset) or "combined". */
  public static KafkaServerConfig.Topology topologyFromSystemProperties() {
    return topologyFrom(System.getProperty(TOPOLOGY_PROPERTY));
  }

  static KafkaServerConfig.Topology topologyFrom(String value) {
    if (value == null || value.isBlank()) {
      return KafkaServerConfig.Topology.DEDICATED;
    }
    return io.ambergarden.config.EnumNames.parse(KafkaServerConfig.Topology.class, value.trim())
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    TOPOLOGY_PROPERTY
                        + " "
                        + io.ambergarden.config.EnumNames.mustBeOneOf(
                            KafkaServerConfig.Topology.class, value)));
  }

  /** amber.localrt.kafka.brokers (or AMBER_LOCALRT_KAFKA_BROKERS), 1 when unset. */
  public static int sizeFromEnvironment() {
    return sizeFrom(System::getProperty, System::getenv);
  }

  /** The same, from system properties only (the tests: no AMBER_* of a dev instance). */
  public static int sizeFromSystemProperties() {
    return sizeFrom(System::getProperty, name -> null);
  }

  static int sizeFrom(UnaryOperator<String> props, UnaryOperator<String> env) {
    String v = props.apply(BROKERS_PROPERTY);
    if (v == null || v.isBlank()) {
      v = env.apply(LocalRuntimeOptions.envName(BROKERS_PROPERTY));
    }
    if (v == null || v.isBlank()) {
      return 1;
    }
    String n = v.trim();
    if (n.equals("1")) {
      return 1;
    }
    if (n.equals(Integer.toString(KafkaServerConfig.CLUSTER_SIZE))) {
      return KafkaServerConfig.CLUSTER_SIZE;
    }
    throw new IllegalArgumentException(
        BROKERS_PROPERTY + " must be 1 or " + KafkaServerConfig.CLUSTER_SIZE + ", got '" + v + "'");
  }

  /** Each cluster broker's -Xmx and -Xms: amber.localrt.kafka.cluster.heap, else 256M. */
  static String heapFromSystemProperties() {
    String v = System.getProperty(HEAP_PROPERTY);
    return v == null || v.isBlank() ? DEFAULT_CLUSTER_HEAP : v.trim();
  }

  /** Each dedicated controller's heap: amber.localrt.kafka.controller.heap, else 128M. */
  static String controllerHeapFromSystemProperties() {
    String v = System.getProperty(CONTROLLER_HEAP_PROPERTY);
    return v == null || v.isBlank() ? DEFAULT_CONTROLLER_HEAP : v.trim();
  }

  /**
   * The cluster id every broker formats its storage with: made once, kept in {@code
   * <clusterDir>/cluster.id}, so a broker whose data is wiped rejoins the same cluster.
   */
  static synchronized String clusterId(Path clusterDir) {
    Path file = clusterDir.resolve("cluster.id");
    try {
      if (!Files.isRegularFile(file)) {
        Files.createDirectories(clusterDir);
        Files.writeString(file, Uuid.randomUuid().toString());
      }
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the Kafka cluster id in " + file, e);
    }
  }

  /** The number of brokers: 1 or 3. */
  public int size() {
    return size;
  }

  public KafkaServerConfig.Topology topology() {
    return topology;
  }

  /** Every process: brokers, then dedicated controllers. */
  public List<KafkaBroker> nodes() {
    return nodes;
  }

  /** The processes with a broker role, broker 1 first. */
  public List<KafkaBroker> brokers() {
    return nodes.stream().filter(n -> n.role().isBroker()).toList();
  }

  /** The processes with a controller role: the KRaft voters. */
  public List<KafkaBroker> controllers() {
    return nodes.stream().filter(n -> n.role().isController()).toList();
  }

  /** Broker {@code nodeId} (1-based). */
  public KafkaBroker broker(int nodeId) {
    KafkaBroker n = node(nodeId);
    if (!n.role().isBroker()) {
      throw new IllegalArgumentException(n.name() + " is no broker");
    }
    return n;
  }

  /**
   * The process with KRaft node id {@code nodeId}: a broker 1..3, or a dedicated controller
   * 101..103 (what {@link KafkaClusterAdmin#activeController()} names).
   */
  public KafkaBroker node(int nodeId) {
    return nodes.stream()
        .filter(n -> n.nodeId() == nodeId)
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no Kafka node "
                        + nodeId
                        + "; the nodes are "
                        + nodes.stream().map(KafkaBroker::nodeId).toList()));
  }

  /** Every broker's address, for bootstrap.servers: clients find the others from any of them. */
  public String bootstrapServers() {
    return KafkaServerConfig.bootstrapServers(options, size, topology);
  }

  /** True when every process is alive (paused ones too). */
  public boolean isRunning() {
    return nodes.stream().allMatch(KafkaBroker::isRunning);
  }

  /** Stops stale processes of a killed run and fails if a port of a stopped one is taken. */
  void prepareStart() {
    for (KafkaBroker b : nodes) {
      if (!b.isRunning()) {
        b.stopStale();
        b.requirePortsFree();
      }
    }
  }

  /**
   * Starts the brokers that are not running, all at once (a cluster node is ready only once a
   * quorum of controllers elected a leader and registered it), and returns when each is ready. If
   * one fails, the others' starts are cut short and the failures thrown together.
   */
  public void start() {
    Instant t0 = Instant.now();
    List<KafkaBroker> stopped = nodes.stream().filter(b -> !b.isRunning()).toList();
    if (stopped.isEmpty()) {
      return;
    }
    onEach(stopped, "kafka-start", KafkaBroker::start, failed -> stopQuietly(stopped));
    lastStartDuration = Duration.between(t0, Instant.now());
    if (size() > 1) {
      LOG.info(
          "Kafka cluster {} ({} controllers) ready in {} ms, RSS {} MiB in all",
          bootstrapServers(),
          topology.name().toLowerCase(java.util.Locale.ROOT),
          lastStartDuration.toMillis(),
          residentMemoryKb().map(kb -> kb / 1024).orElse(-1L));
    }
  }

  /**
   * SIGTERM to every broker at once (each waits for its clean shutdown), then to the dedicated
   * controllers, which a broker's controlled shutdown needs; failures collected.
   */
  public void stop() {
    List<KafkaBroker> brokers = brokers();
    List<KafkaBroker> controllersOnly = nodes.stream().filter(n -> !brokers.contains(n)).toList();
    try {
      onEach(brokers, "kafka-stop", KafkaBroker::stop, failed -> {});
    } finally {
      onEach(controllersOnly, "kafka-controller-stop", KafkaBroker::stop, failed -> {});
    }
  }

  private static void stopQuietly(List<KafkaBroker> brokers) {
    for (KafkaBroker b : brokers) {
      try {
        b.stop();
      } catch (RuntimeException e) {
        LOG.warn("Could not stop {} after a failed start", b.name(), e);
      }
    }
  }

  /**
   * Starts node {@code nodeId} if it does not run, and waits until it is back: a broker registered
   * with the controllers, a controller following the quorum's leader.
   */
  public void start(int nodeId) {
    node(nodeId).start();
  }

  /**
   * SIGKILL: no shutdown, no hand-over; the controllers notice a broker by its missed heartbeats,
   * the other controllers a dead leader by its silence.
   */
  public void kill(int nodeId) {
    node(nodeId).kill();
  }

  /** SIGTERM: a broker's controlled shutdown moves its leaderships first. */
  public void stop(int nodeId) {
    node(nodeId).stop();
  }

  /** SIGSTOP: the process keeps its sockets and answers nothing. */
  public void pause(int nodeId) {
    node(nodeId).pause();
  }

  /** SIGCONT after {@link #pause(int)}. */
  public void resume(int nodeId) {
    node(nodeId).resume();
  }

  public Optional<Duration> lastStartDuration() {
    return Optional.ofNullable(lastStartDuration);
  }

  /** Summed RSS of the running processes, KiB. */
  public Optional<Long> residentMemoryKb() {
    return nodes.stream()
        .map(KafkaBroker::residentMemoryKb)
        .flatMap(Optional::stream)
        .reduce(Long::sum);
  }

  /**
   * Runs {@code action} on each broker on its own thread (each blocks for seconds) and waits for
   * all; {@code onFailure} runs as soon as one fails. Throws the first failure, the rest
   * suppressed.
   */
  private static void onEach(
      List<KafkaBroker> brokers,
      String threadName,
      Consumer<KafkaBroker> action,
      Consumer<Throwable> onFailure) {
    List<Throwable> failures = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (KafkaBroker b : brokers) {
      Thread t =
          new Thread(
              () -> {
                try {
                  action.accept(b);
                } catch (RuntimeException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                  onFailure.accept(e);
                }
              },
              threadName + "-" + b.nodeId());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalRuntimeException("interrupted while waiting for " + threadName, e);
      }
    }
    if (!failures.isEmpty()) {
      Throwable first = failures.get(0);
      LocalRuntimeException e =
          first instanceof LocalRuntimeException l
              ? l
              : new LocalRuntimeException(threadName + " failed", first);
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }
}
