package io.ambergarden.health;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.loadbalancing.NodeDistance;
import com.datastax.oss.driver.api.core.metadata.Metadata;
import com.datastax.oss.driver.api.core.metadata.Node;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ClusterClock;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.LogThrottle;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every clock.check-interval, reads the clock of each Cassandra node the driver connects to (the
 * statement pinned to the node), estimates its offset from this instance's clock ({@link
 * ClockOffsets}), exports it, re-anchors the {@link ClusterClock} (the nodes' median) that marks,
 * scans, leases and rollup stamps follow, and warns (throttled) when the skew exceeds
 * clock.max-skew: TTLs, Paxos ballots and a skewed node's own messages still run on node clocks. A
 * node that does not answer is counted and skipped; readiness does not depend on this check.
 */
public final class ClockCheckVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ClockCheckVerticle.class);
  static final String NODE_TIME = "SELECT toUnixTimestamp(now()) FROM system.local";
  static final int SAMPLES_PER_NODE = 3;
  private static final Duration LONGEST_READ = Duration.ofSeconds(2);

  private final AmberConfig.Clock settings;
  private final AmberConfig.Cassandra cassandraConfig;
  private final Duration readTimeout;
  private final ClockMeters meters;
  private final LogThrottle warnings = new LogThrottle(1, Duration.ofMinutes(10));
  private final LogThrottle untracked = new LogThrottle(1, Duration.ofHours(1));
  private CassandraClient cassandra;
  private boolean busy;
  private boolean skewed;
  private boolean stopped;

  public ClockCheckVerticle(AmberConfig config, MeterRegistry registry) {
    this.settings = config.clock();
    Duration request = config.cassandra().requestTimeout();
    this.readTimeout = request.compareTo(LONGEST_READ) < 0 ? request : LONGEST_READ;
    this.cassandraConfig = config.cassandra();
    this.meters = new ClockMeters(registry);
  }

  @Override
  public Future<?> start() {
    cassandra = CassandraClients.shared(vertx, cassandraConfig);
    vertx.setPeriodic(0, settings.checkInterval().toMillis(), id -> check());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    meters.close();
    return Future.succeededFuture();
  }

  private void check() {
    if (busy) {
      return;
    }
    busy = true;
    cassandra
        .metadata()
        .compose(this::checkNodes)
        .onComplete(
            ar -> {
              busy = false;
              if (ar.failed()) {
                LOG.debug("clock check skipped: {}", ar.cause().toString());
              }
            });
  }

  private Future<Void> checkNodes(Metadata metadata) {
    if (stopped) {
      return Future.succeededFuture();
    }
    Map<String, Node> nodes = new TreeMap<>();
    for (Node n : metadata.getNodes().values()) {
      if (n.getDistance() != NodeDistance.IGNORED) {
        nodes.put(name(n.getEndPoint().resolve()), n);
      }
    }
    meters.retain(nodes.keySet());
    Map<String, Future<Optional<ClockOffsets.Offset>>> pending = new LinkedHashMap<>();
    for (Map.Entry<String, Node> e : nodes.entrySet()) {
      if (meters.track(e.getKey())) {
        pending.put(e.getKey(), offsetOf(e.getKey(), e.getValue()));
      }
    }
    if (pending.size() < nodes.size() && untracked.tryAcquire() != LogThrottle.SUPPRESS) {
      LOG.warn(
          "clock check: {} Cassandra nodes, only {} are tracked", nodes.size(), pending.size());
    }
    // each node's future succeeds, empty when the node did not answer
    return Future.join(List.copyOf(pending.values()))
        .map(
            v -> {
              Map<String, ClockOffsets.Offset> answered = new LinkedHashMap<>();
              pending.forEach(
                  (node, f) -> {
                    if (f.succeeded() && f.result().isPresent()) {
                      answered.put(node, f.result().get());
                    }
                  });
              report(ClockOffsets.judge(answered, settings.maxSkew()));
              // marks, count records and scans follow the cluster's time, not this clock
              ClockOffsets.clusterOffsetSeconds(answered)
                  .ifPresent(s -> ClusterClock.shared().sync(Math.round(s * 1000)));
              return null;
            });
  }

  /** The best of a few timed reads of the node's clock; empty (counted) when it did not answer. */
  private Future<Optional<ClockOffsets.Offset>> offsetOf(String name, Node node) {
    List<ClockOffsets.Sample> samples = new ArrayList<>(SAMPLES_PER_NODE);
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < SAMPLES_PER_NODE; i++) {
      chain = chain.compose(v -> sample(node).map(s -> samples.add(s)).<Void>mapEmpty());
    }
    return chain.transform(
        ar -> {
          if (ar.failed()) {
            meters.failed(name);
            LOG.debug("clock check of {} failed: {}", name, ar.cause().toString());
            return Future.succeededFuture(Optional.empty());
          }
          Optional<ClockOffsets.Offset> best = ClockOffsets.best(samples);
          best.ifPresent(o -> meters.measured(name, o));
          return Future.succeededFuture(best);
        });
  }

  private Future<ClockOffsets.Sample> sample(Node node) {
    SimpleStatement read =
        SimpleStatement.newInstance(NODE_TIME)
            .setNode(node)
            .setConsistencyLevel(DefaultConsistencyLevel.ONE)
            .setIdempotent(true)
            .setTimeout(readTimeout);
    long before = System.currentTimeMillis();
    long started = System.nanoTime();
    return cassandra
        .executeWithFullFetch(read)
        .timeout(readTimeout.toMillis() + 500, TimeUnit.MILLISECONDS)
        .map(
            rows -> {
              long roundTrip = System.nanoTime() - started;
              long after = System.currentTimeMillis();
              Row row = rows.isEmpty() ? null : rows.get(0);
              if (row == null || row.isNull(0)) {
                throw new IllegalStateException("no time in the answer");
              }
              return new ClockOffsets.Sample(before, after, roundTrip, row.getLong(0));
            });
  }

  private void report(ClockOffsets.Verdict verdict) {
    meters.skew(verdict.skewSeconds());
    if (verdict.exceeded()) {
      skewed = true;
      long skipped = warnings.tryAcquire();
      if (skipped != LogThrottle.SUPPRESS) {
        LOG.warn(
            "{} (clock.max-skew {} ms); a skewed node may drop its peers' messages while it lasts:"
                + " check NTP or chrony on this pod's node and on the Cassandra nodes{}",
            verdict.describe(),
            settings.maxSkew().toMillis(),
            skipped == 0 ? "" : " (" + skipped + " such warnings skipped)");
      }
    } else if (skewed && verdict.nodes() > 0) {
      skewed = false;
      LOG.info("clock skew back within clock.max-skew: {}", verdict.describe());
    }
  }

  static String name(SocketAddress address) {
    if (address instanceof InetSocketAddress a) {
      return a.getHostString() + ":" + a.getPort();
    }
    return String.valueOf(address);
  }
}
