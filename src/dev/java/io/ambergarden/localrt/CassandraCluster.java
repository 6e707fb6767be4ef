package io.ambergarden.localrt;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local Cassandra: one node, or N nodes laid out as ccm does (node i on 127.0.0.i, every node a
 * seed, no bootstrap). Nodes start one after another, and each start waits until every running node
 * sees every other one up, so the ring is whole before anyone writes.
 */
public final class CassandraCluster {
  public static final String NODES_PROPERTY = LocalRuntimeOptions.PREFIX + "cassandra.nodes";
  static final int MAX_NODES = 9;
  private static final Logger LOG = LoggerFactory.getLogger(CassandraCluster.class);

  private final LocalRuntimeOptions options;
  private final List<CassandraNode> nodes;
  private volatile Duration lastStartDuration;

  public CassandraCluster(LocalRuntimeOptions options, int size) {
    if (size < 1 || size > MAX_NODES) {
      throw new IllegalArgumentException(
          NODES_PROPERTY + " must be between 1 and " + MAX_NODES + ", got " + size);
    }
    this.options = options;
    List<CassandraNode> list = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      list.add(new CassandraNode(options, i, size));
    }
    this.nodes = List.copyOf(list);
  }

  /** amber.localrt.cassandra.nodes (or AMBER_LOCALRT_CASSANDRA_NODES), 1 when unset. */
  public static int sizeFromEnvironment() {
    return sizeFrom(System::getProperty, System::getenv);
  }

  /** The same, from system properties only (the tests: no AMBER_* of a dev instance). */
  public static int sizeFromSystemProperties() {
    return sizeFrom(System::getProperty, name -> null);
  }

  static int sizeFrom(UnaryOperator<String> props, UnaryOperator<String> env) {
    String v = props.apply(NODES_PROPERTY);
    if (v == null || v.isBlank()) {
      v = env.apply(LocalRuntimeOptions.envName(NODES_PROPERTY));
    }
    if (v == null || v.isBlank()) {
      return 1;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n >= 1 && n <= MAX_NODES) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        NODES_PROPERTY + " must be between 1 and " + MAX_NODES + ", got '" + v + "'");
  }

  public int size() {
    return nodes.size();
  }

  public List<CassandraNode> nodes() {
    return nodes;
  }

  /** Node {@code index}, 1-based. */
  public CassandraNode node(int index) {
    return nodes.get(index - 1);
  }

  /** "127.0.0.1:9042,127.0.0.2:9042,…", for cassandra.contact-points. */
  public String contactPoints() {
    return nodes.stream().map(CassandraNode::contactPoint).collect(Collectors.joining(","));
  }

  /**
   * The keyspace replication for this cluster, in cassandra.replication's form: what production
   * runs (NetworkTopologyStrategy, RF 3) from three nodes on, else every node a replica.
   */
  public String replication() {
    return size() >= 3
        ? "NetworkTopologyStrategy:" + CassandraNode.LOCAL_DATACENTER + "=3"
        : "SimpleStrategy:" + size();
  }

  public boolean isRunning() {
    return nodes.stream().allMatch(CassandraNode::isRunning);
  }

  /** Stops stale nodes of a killed run and fails if a port of a stopped node is taken. */
  void prepareStart() {
    for (CassandraNode n : nodes) {
      if (!n.isRunning()) {
        n.stopStale();
        n.requirePortsFree();
      }
    }
  }

  /** Starts the nodes that are not running, one after another; returns when the ring is whole. */
  public void start() {
    Instant t0 = Instant.now();
    for (CassandraNode n : nodes) {
      if (!n.isRunning()) {
        n.start();
        if (size() > 1) {
          awaitUp(t0.plus(options.startupTimeout()));
        }
      }
    }
    lastStartDuration = Duration.between(t0, Instant.now());
  }

  /**
   * Waits until every running node's gossip sees every running node up (a node that just answered
   * CQL may not yet know its peers, nor they it).
   */
  public void awaitUp(Instant deadline) {
    List<CassandraNode> running = nodes.stream().filter(CassandraNode::isRunning).toList();
    List<String> hosts = running.stream().map(CassandraNode::host).toList();
    String last = "";
    while (true) {
      List<String> missing = new ArrayList<>();
      for (CassandraNode n : running) {
        try (NodeJmx jmx = n.jmx()) {
          List<String> live = jmx.liveNodes();
          hosts.stream()
              .filter(h -> !live.contains(h))
              .forEach(h -> missing.add(n.host() + " does not see " + h));
        } catch (RuntimeException e) {
          missing.add(n.host() + ": " + e.getMessage());
        }
      }
      if (missing.isEmpty()) {
        LOG.info("Cassandra ring: {} up, each seen by all", hosts);
        return;
      }
      last = String.join("; ", missing);
      if (Instant.now().isAfter(deadline)) {
        throw new LocalRuntimeException("Cassandra nodes did not see each other up: " + last);
      }
      try {
        TimeUnit.MILLISECONDS.sleep(500); // polling gossip state; no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalRuntimeException("interrupted while waiting for the ring", e);
      }
    }
  }

  /** Stops every node at once (a clean stop each: peers hear it), failures collected. */
  public void stop() {
    List<Thread> threads = new ArrayList<>();
    List<RuntimeException> failures = new ArrayList<>();
    for (CassandraNode n : nodes) {
      Thread t =
          new Thread(
              () -> {
                try {
                  n.stop();
                } catch (RuntimeException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              },
              "stop-" + n.host());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!failures.isEmpty()) {
      LocalRuntimeException e =
          new LocalRuntimeException("Stopping Cassandra failed", failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }

  /** DROP KEYSPACE IF EXISTS through node 1, so a run starts without an earlier run's rows. */
  public void dropKeyspace(String keyspace) {
    try (com.datastax.oss.driver.api.core.CqlSession session =
        node(1).openSession(Duration.ofSeconds(60))) {
      session.execute(
          com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                  "DROP KEYSPACE IF EXISTS " + keyspace)
              .setTimeout(Duration.ofMinutes(2)));
    }
  }

  /** `nodetool status` as node 1 sees the ring (or the first running node). */
  public String status() {
    CassandraNode n = nodes.stream().filter(CassandraNode::isRunning).findFirst().orElseThrow();
    return n.nodetool("status");
  }

  public Optional<Duration> lastStartDuration() {
    return Optional.ofNullable(lastStartDuration);
  }

  /** Summed RSS of the running nodes, KiB. */
  public Optional<Long> residentMemoryKb() {
    return nodes.stream()
        .map(CassandraNode::residentMemoryKb)
        .flatMap(Optional::stream)
        .reduce(Long::sum);
  }
}
