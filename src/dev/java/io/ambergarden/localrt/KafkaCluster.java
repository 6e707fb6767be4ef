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
 * The local Kafka: one broker on 127.0.0.1 (the default), or three on 127.0.0.11..13, each broker
 * and KRaft controller at once, RF 3 and min ISR 2 (see {@link KafkaServerConfig}). Three combined
 * nodes rather than three brokers plus three controllers: half the JVMs on a two-core box, and a
 * kill of the active controller also takes out a broker, the harder case for failover.
 *
 * <p>Fault operations act on one broker by node id ({@link #kill}, {@link #stop}, {@link #pause},
 * {@link #resume}, {@link #start(int)}); {@link KafkaClusterAdmin} says who leads what.
 */
public final class KafkaCluster {
  /** {@code amber.localrt.kafka.brokers}: 1 (default) or 3. */
  public static final String BROKERS_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.brokers";

  /** {@code amber.localrt.kafka.cluster.heap}: each cluster broker's heap. */
  public static final String HEAP_PROPERTY = LocalRuntimeOptions.PREFIX + "kafka.cluster.heap";

  static final String DEFAULT_CLUSTER_HEAP = "256M";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);

  private final LocalRuntimeOptions options;
  private final List<KafkaBroker> brokers;
  private volatile Duration lastStartDuration;

  /** One broker (with a SASL_SSL listener on {@code securePort} unless 0), or three. */
  public KafkaCluster(LocalRuntimeOptions options, int size, int securePort) {
    if (size != 1 && securePort != 0) {
      throw new IllegalArgumentException(
          "the SASL_SSL listener exists on the single broker only, not with " + size);
    }
    this.options = options;
    List<KafkaBroker> list = new ArrayList<>();
    if (size == 1) {
      list.add(new KafkaBroker(options, securePort));
    } else {
      for (int i = 1; i <= size; i++) {
        list.add(new KafkaBroker(options, i, size));
      }
    }
    this.brokers = List.copyOf(list);
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

  public int size() {
    return brokers.size();
  }

  public List<KafkaBroker> brokers() {
    return brokers;
  }

  /** Broker {@code nodeId} (its KRaft node.id, 1-based). */
  public KafkaBroker broker(int nodeId) {
    if (nodeId < 1 || nodeId > brokers.size()) {
      throw new IllegalArgumentException("no broker " + nodeId + " of " + brokers.size());
    }
    return brokers.get(nodeId - 1);
  }

  /** Every broker's address, for bootstrap.servers: clients find the others from any of them. */
  public String bootstrapServers() {
    return KafkaServerConfig.bootstrapServers(options, size());
  }

  /** True when every broker's process is alive (paused ones too). */
  public boolean isRunning() {
    return brokers.stream().allMatch(KafkaBroker::isRunning);
  }

  /** Stops stale brokers of a killed run and fails if a port of a stopped broker is taken. */
  void prepareStart() {
    for (KafkaBroker b : brokers) {
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
    List<KafkaBroker> stopped = brokers.stream().filter(b -> !b.isRunning()).toList();
    if (stopped.isEmpty()) {
      return;
    }
    onEach(stopped, "kafka-start", KafkaBroker::start, failed -> stopQuietly(stopped));
    lastStartDuration = Duration.between(t0, Instant.now());
    if (size() > 1) {
      LOG.info(
          "Kafka cluster {} ready in {} ms, RSS {} MiB in all",
          bootstrapServers(),
          lastStartDuration.toMillis(),
          residentMemoryKb().map(kb -> kb / 1024).orElse(-1L));
    }
  }

  /** SIGTERM to every broker at once (each waits for its clean shutdown), failures collected. */
  public void stop() {
    onEach(brokers, "kafka-stop", KafkaBroker::stop, failed -> {});
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

  /** Starts broker {@code nodeId} if it does not run, and waits until it is registered again. */
  public void start(int nodeId) {
    broker(nodeId).start();
  }

  /** SIGKILL: no shutdown, no leadership hand-over; the controller notices by missed heartbeats. */
  public void kill(int nodeId) {
    broker(nodeId).kill();
  }

  /** SIGTERM: a controlled shutdown that moves its leaderships first. */
  public void stop(int nodeId) {
    broker(nodeId).stop();
  }

  /** SIGSTOP: the broker keeps its sockets and answers nothing. */
  public void pause(int nodeId) {
    broker(nodeId).pause();
  }

  /** SIGCONT after {@link #pause(int)}. */
  public void resume(int nodeId) {
    broker(nodeId).resume();
  }

  public Optional<Duration> lastStartDuration() {
    return Optional.ofNullable(lastStartDuration);
  }

  /** Summed RSS of the running brokers, KiB. */
  public Optional<Long> residentMemoryKb() {
    return brokers.stream()
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
