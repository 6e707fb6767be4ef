package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.NodeJmx;
import io.ambergarden.metrics.PrometheusText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The soak ({@code -Damber.bench.soak=20m}): half-rate ingest with reads for the whole duration, in
 * one-minute windows. Per window: read p99 of both endpoints, the service's live heap after GC, and
 * Cassandra's pending compactions; then the drift of p99 (last five windows against the first
 * five), and the disk bytes the soak's events added (after a flush) against the table layout's own
 * estimate (the bound values of the rows written per event, one replica, uncompressed).
 */
final class SoakPhase {
  interface Window {
    void run() throws Exception;
  }

  interface ReadsDuring {
    List<ReadLatencyProbe.Summary> during(String condition, Window load) throws Exception;
  }

  private static final double MIB = 1024 * 1024;

  private final LocalRuntime runtime;
  private final String topic;
  private final String prefix;
  private final int devices;
  private final String keyspace;
  private final Supplier<String> serviceMetrics;
  private final CpuLedger ledger;

  SoakPhase(
      LocalRuntime runtime,
      String topic,
      String prefix,
      int devices,
      String keyspace,
      Supplier<String> serviceMetrics,
      CpuLedger ledger) {
    this.runtime = runtime;
    this.topic = topic;
    this.prefix = prefix;
    this.devices = devices;
    this.keyspace = keyspace;
    this.serviceMetrics = serviceMetrics;
    this.ledger = ledger;
  }

  private final List<String> lines = new ArrayList<>();

  /**
   * Runs the windows from topic offset {@code base}; returns the offset after the last one. The
   * report lines are in {@link #lines()}.
   */
  long run(long base, double rate, AtomicLong committed, int seconds, ReadsDuring reads)
      throws Exception {
    int windows = Math.max(1, seconds / 60);
    int perWindow = (int) (rate * 60);
    System.out.printf(
        "Soak: %d one-minute windows of %,d events at %,.0f/s with (e) reads%n",
        windows, perWindow, rate);
    List<double[]> p99 = new ArrayList<>();
    long bytesBefore = ClusterCostBench.flushedBytes(runtime.cluster(), keyspace);
    CpuLedger.Span cpu = ledger.start("soak at half rate (+ reads)");
    long offset = base;
    for (int m = 1; m <= windows; m++) {
      List<BenchEvents.Spec> events =
          BenchEvents.generate(
              prefix, "s" + m, perWindow, devices, System.currentTimeMillis(), 100 + m);
      long from = offset;
      List<ReadLatencyProbe.Summary> s =
          reads.during(
              "soak minute " + m,
              () -> {
                BenchTopics.produceAtRate(runtime.kafkaBootstrap(), topic, events, rate);
                // the producer paced the window: this only waits for the consumer's last commits
                BenchTopics.awaitAllCommitted(
                    runtime.kafkaBootstrap(), topic + "-group", topic, from, perWindow, committed);
              });
      offset += perWindow;
      double page = ReadLatencyProbe.Summary.of(s, "/events").p99Millis();
      double latest = ReadLatencyProbe.Summary.of(s, "/latest").p99Millis();
      p99.add(new double[] {page, latest});
      double liveHeap =
          PrometheusText.sum(serviceMetrics.get(), "jvm_gc_live_data_size_bytes") / MIB;
      int pending;
      try (NodeJmx jmx = runtime.cassandra().jmx()) {
        pending = jmx.pendingCompactions();
      }
      String line =
          String.format(
              "soak minute %d: %,d events at %,.0f/s; read p99 page %.1f ms, latest %.1f ms; service"
                  + " live heap after GC %.0f MiB; Cassandra pending compactions %d",
              m, perWindow, rate, page, latest, liveHeap, pending);
      System.out.println("  " + line);
      lines.add(line);
    }
    long soakEvents = (long) windows * perWindow;
    cpu.end(soakEvents);
    long bytesAfter = ClusterCostBench.flushedBytes(runtime.cluster(), keyspace);
    int k = Math.min(5, p99.size());
    double[] first = mean(p99.subList(0, k));
    double[] last = mean(p99.subList(p99.size() - k, p99.size()));
    lines.add(
        String.format(
            "soak drift: mean of the per-minute read p99, last %d minutes against the first %d: page"
                + " %.1f -> %.1f ms (%.2fx), latest %.1f -> %.1f ms (%.2fx)",
            k, k, first[0], last[0], last[0] / first[0], first[1], last[1], last[1] / first[1]));
    double estimate = layoutEstimate();
    double perEvent = (double) (bytesAfter - bytesBefore) / soakEvents;
    lines.add(
        String.format(
            "soak disk: %,.0f bytes per event added on disk after a flush (%,d events; all tables,"
                + " LZ4, before compaction settles) against the layout's estimate of %,.0f bytes"
                + " (bound values of the detail, by-type, latest, abnormal and bucket rows per"
                + " event, uncompressed): %.2fx",
            perEvent, soakEvents, estimate, perEvent / estimate));
    return offset;
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  private static double[] mean(List<double[]> rows) {
    double[] m = new double[2];
    for (double[] r : rows) {
      m[0] += r[0] / rows.size();
      m[1] += r[1] / rows.size();
    }
    return m;
  }

  /**
   * Bound-value bytes of the rows (a) writes per event, over a sample of the generator's events.
   */
  private double layoutEstimate() {
    List<BenchEvents.Spec> sample =
        BenchEvents.generate(prefix, "est", 10_000, devices, System.currentTimeMillis(), 99);
    try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
      RawWriteLoop rows = new RawWriteLoop(session, keyspace, 8, 8);
      Set<String> partitions = new HashSet<>();
      long bytes = 0;
      for (BenchEvents.Spec e : sample) {
        bytes += ReplicaLocator.sizeOf(rows.detail(e));
        bytes += ReplicaLocator.sizeOf(rows.byType(e));
        bytes += ReplicaLocator.sizeOf(rows.latest(e));
        if (e.abnormal()) {
          bytes += ReplicaLocator.sizeOf(rows.abnormal(e));
        }
        if (partitions.add(e.deviceId() + "/" + RawWriteLoop.bucketOf(e))) {
          bytes += ReplicaLocator.sizeOf(rows.bucket(e));
        }
      }
      return (double) bytes / sample.size();
    }
  }
}
