package io.ambergarden.localrt;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Cassandra node (or a {@link CassandraCluster} of several, on 127.0.0.1..N) and a real
 * Kafka broker on 127.0.0.1 (or a {@link KafkaCluster} of three on 127.0.0.11..13), each its own
 * JVM process in a process group of its own, with their data under {@link
 * LocalRuntimeOptions#baseDir()}. Registers nothing global: the servers stop by themselves once
 * this JVM is gone ({@link ParentWatch}); callers that want them stopped in order, after their own
 * service, add a shutdown hook calling {@link #close()}.
 */
public final class LocalRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRuntime.class);

  private final LocalRuntimeOptions options;
  private final CassandraCluster cluster;
  private final KafkaCluster kafka;
  private S3ProxyServer objectStore;

  /**
   * {@code amber.localrt.kafka.secure.port}: a SASL_SSL listener on the broker (0 or unset: none).
   */
  public static final String KAFKA_SECURE_PORT = LocalRuntimeOptions.PREFIX + "kafka.secure.port";

  /** One Cassandra node. */
  public LocalRuntime(LocalRuntimeOptions options) {
    this(options, Integer.getInteger(KAFKA_SECURE_PORT, 0), 1);
  }

  /**
   * {@code cassandraNodes} Cassandra nodes (see {@link CassandraCluster}) and as many Kafka brokers
   * as {@code amber.localrt.kafka.brokers} says (1 when unset).
   */
  public LocalRuntime(LocalRuntimeOptions options, int kafkaSecurePort, int cassandraNodes) {
    this(options, kafkaSecurePort, cassandraNodes, KafkaCluster.sizeFromSystemProperties());
  }

  /** {@code kafkaBrokers} Kafka brokers, 1 or 3 (see {@link KafkaCluster}). */
  public LocalRuntime(
      LocalRuntimeOptions options, int kafkaSecurePort, int cassandraNodes, int kafkaBrokers) {
    this.options = options;
    this.cluster = new CassandraCluster(options, cassandraNodes);
    if (kafkaBrokers != 1 && kafkaSecurePort != 0) {
      LOG.info("No SASL_SSL listener on port {}: only the single broker has one", kafkaSecurePort);
    }
    this.kafka = new KafkaCluster(options, kafkaBrokers, kafkaBrokers == 1 ? kafkaSecurePort : 0);
    this.objectStore = new S3ProxyServer(options, S3ProxyOptions.fromEnvironment());
  }

  /** Runs the object store with these options instead (the tests' ports); before {@link #start}. */
  public LocalRuntime withObjectStore(S3ProxyOptions s3) {
    this.objectStore = new S3ProxyServer(options, s3);
    return this;
  }

  /** Creates a runtime and starts both servers. */
  public static LocalRuntime launch(LocalRuntimeOptions options) {
    return new LocalRuntime(options).start();
  }

  /**
   * Starts both servers in parallel (they boot in 10-25 s each, mostly CPU and waiting) and returns
   * when both are ready. If one fails, the other is stopped too and the failure thrown. A server
   * that already runs is left alone, so this also restarts one a test has stopped.
   */
  public synchronized LocalRuntime start() {
    boolean serversUp = cluster.isRunning() && kafka.isRunning();
    if (!serversUp) {
      LOG.info(
          "Starting local Cassandra {} ({} node(s)) and Kafka {} ({} broker(s)) in {}",
          options.cassandraVersion(),
          cluster.size(),
          options.kafkaVersion(),
          kafka.size(),
          options.baseDir());
      // fail fast, before any download or process start: leftovers of a killed run go, then every
      // port must be free
      kafka.prepareStart();
      cluster.prepareStart();
    }
    // a first run resolves the three classpaths together, in one Maven call
    MavenClasspath.resolveAll(
        List.of(cassandra().classpathSpec(), kafka().classpathSpec(), objectStore.classpathSpec()));
    // S3Proxy boots beside Cassandra and Kafka; this also brings it back when a test stopped it
    CompletableFuture<Void> s3 = new CompletableFuture<>();
    new Thread(() -> complete(s3, objectStore::start), "localrt-start-s3").start();
    if (serversUp) {
      Throwable failed = joined(s3);
      if (failed != null) {
        throw failed instanceof RuntimeException r
            ? r
            : new LocalRuntimeException("S3Proxy", failed);
      }
      return this;
    }
    // if one server fails, the other's start is cut short instead of finishing for nothing
    List<Throwable> failures =
        inParallel(cluster::start, kafka::start, "localrt-start", kafka::stop, cluster::stop);
    Throwable s3Failure = joined(s3);
    if (s3Failure != null) {
      failures.add(s3Failure);
    }
    if (!failures.isEmpty()) {
      stopQuietly();
      LocalRuntimeException e =
          failures.get(0) instanceof LocalRuntimeException l
              ? l
              : new LocalRuntimeException("Local runtime failed to start", failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    if (kafka().secureAccess().isPresent()) {
      kafka().ensureScramUser();
    }
    LOG.info(
        "Local runtime ready: Cassandra {} ({} ms, RSS {} MiB), Kafka {} ({} ms, RSS {} MiB)",
        cassandraContactPoint(),
        cluster.lastStartDuration().map(d -> d.toMillis()).orElse(-1L),
        cluster.residentMemoryKb().map(kb -> kb / 1024).orElse(-1L),
        kafkaBootstrap(),
        kafka.lastStartDuration().map(d -> d.toMillis()).orElse(-1L),
        kafka.residentMemoryKb().map(kb -> kb / 1024).orElse(-1L));
    return this;
  }

  /**
   * Stops Kafka, then Cassandra and S3Proxy in parallel: a service instance still running on them
   * gets no new events before its store goes. Safe to call repeatedly and from a shutdown hook.
   */
  @Override
  public void close() {
    List<Throwable> failures = new ArrayList<>();
    try {
      kafka.stop();
    } catch (RuntimeException e) {
      failures.add(e);
    }
    failures.addAll(
        inParallel(cluster::stop, objectStore::stop, "localrt-stop", () -> {}, () -> {}));
    if (!failures.isEmpty()) {
      LocalRuntimeException e =
          new LocalRuntimeException("Stopping the local runtime failed", failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }

  private void stopQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      LOG.warn("Cleanup after a failed start failed", e);
    }
  }

  /** Deletes the data of the servers; they must be stopped. */
  public synchronized void reset() {
    if (cluster.nodes().stream().anyMatch(ServerProcess::isRunning)
        || kafka.nodes().stream().anyMatch(ServerProcess::isRunning)
        || objectStore.isRunning()) {
      throw new IllegalStateException("Stop the local runtime before resetting it");
    }
    wipe(options);
  }

  /**
   * Deletes {@code <base>/cassandra}, the cluster nodes' {@code <base>/cassandra-xN}, {@code
   * <base>/kafka} and the Kafka clusters' {@code <base>/kafka-x3*}. Refuses while a server of an
   * earlier run still holds them. The cached classpath files stay, so no re-resolution.
   */
  public static void wipe(LocalRuntimeOptions options) {
    List<ServerProcess> servers = new ArrayList<>();
    servers.add(new CassandraNode(options));
    servers.add(new KafkaBroker(options));
    for (KafkaServerConfig.Topology t : KafkaServerConfig.Topology.values()) {
      if (Files.isDirectory(KafkaBroker.clusterDir(options, t))) {
        servers.addAll(new KafkaCluster(options, KafkaServerConfig.CLUSTER_SIZE, t, 0).nodes());
      }
    }
    servers.add(new S3ProxyServer(options, S3ProxyOptions.fromEnvironment()));
    for (int size = 2; size <= CassandraCluster.MAX_NODES; size++) {
      if (Files.isDirectory(CassandraNode.dirOf(options, 1, size).getParent())) {
        servers.addAll(new CassandraCluster(options, size).nodes());
      }
    }
    for (ServerProcess server : servers) {
      if (server.isDirInUse()) {
        throw new IllegalStateException(
            server.name()
                + " still runs on "
                + server.dir()
                + " (pid file "
                + server.pidFile()
                + "); stop it first");
      }
      deleteTree(server.dir());
    }
    for (int size = 2; size <= CassandraCluster.MAX_NODES; size++) {
      deleteTree(CassandraNode.dirOf(options, 1, size).getParent());
    }
    for (KafkaServerConfig.Topology t : KafkaServerConfig.Topology.values()) {
      deleteTree(KafkaBroker.clusterDir(options, t));
    }
    LOG.info("Wiped local runtime data in {}", options.baseDir());
  }

  public LocalRuntimeOptions options() {
    return options;
  }

  /** Node 1: the only node, or the first of the cluster. */
  public CassandraNode cassandra() {
    return cluster.node(1);
  }

  public CassandraCluster cluster() {
    return cluster;
  }

  /** Broker 1: the only broker, or the first of the cluster. */
  public KafkaBroker kafka() {
    return kafka.broker(1);
  }

  public KafkaCluster kafkaCluster() {
    return kafka;
  }

  /** The local S3-compatible object store (S3Proxy). */
  public S3ProxyServer objectStore() {
    return objectStore;
  }

  /** "127.0.0.1:9042", or every node's, comma-separated. */
  public String cassandraContactPoint() {
    return cluster.contactPoints();
  }

  public int cqlPort() {
    return cassandra().cqlPort();
  }

  /** "127.0.0.1:9092", or every broker's, comma-separated. */
  public String kafkaBootstrap() {
    return kafka.bootstrapServers();
  }

  /**
   * Runs a and b on two new threads (not the common pool: both block for many seconds) and waits
   * for both; onAFailure / onBFailure run as soon as a / b fails.
   */
  private static List<Throwable> inParallel(
      Runnable a, Runnable b, String threadName, Runnable onAFailure, Runnable onBFailure) {
    CompletableFuture<Void> fa = new CompletableFuture<>();
    CompletableFuture<Void> fb = new CompletableFuture<>();
    fa.whenComplete(
        (v, e) -> {
          if (e != null) {
            onAFailure.run();
          }
        });
    fb.whenComplete(
        (v, e) -> {
          if (e != null) {
            onBFailure.run();
          }
        });
    Thread ta = new Thread(() -> complete(fa, a), threadName + "-1");
    Thread tb = new Thread(() -> complete(fb, b), threadName + "-2");
    ta.start();
    tb.start();
    List<Throwable> failures = new ArrayList<>();
    for (CompletableFuture<Void> f : List.of(fa, fb)) {
      try {
        f.join();
      } catch (CompletionException e) {
        failures.add(e.getCause());
      }
    }
    return failures;
  }

  /** Waits for {@code f}; its failure, or null. */
  private static Throwable joined(CompletableFuture<Void> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  private static void complete(CompletableFuture<Void> future, Runnable task) {
    try {
      task.run();
      future.complete(null);
    } catch (Throwable t) {
      future.completeExceptionally(t);
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.delete(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc)
                throws IOException {
              Files.delete(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete " + root, e);
    }
  }
}
