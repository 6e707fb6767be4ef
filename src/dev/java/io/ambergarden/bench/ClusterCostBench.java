package io.ambergarden.bench;

import io.ambergarden.localrt.CassandraCluster;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.ambergarden.localrt.NodeJmx;
import io.ambergarden.metrics.PrometheusText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The cost of a cluster ({@code mvn -Pbench -Dbench.main=io.ambergarden.bench.ClusterCostBench}):
 * the same Kafka ingest through the service on one Cassandra node (RF 1), then on three (RF 3,
 * LOCAL_QUORUM), one after the other in one run on one machine. Per setup: events/s, CPU per 1000
 * events of each process (the Cassandra nodes summed), the rows per write statement the writer
 * really sends (its replica-group batches), and the bytes on disk per event after a flush, summed
 * over the nodes (RF 3 keeps three copies). Settings: -Damber.bench.cluster-events (100000),
 * cluster-warmup (50000), cluster-devices (5000), cluster-nodes ("1,3"). Results in
 * .bench-results/&lt;UTC&gt;-cluster/results.md.
 */
public final class ClusterCostBench {
  private static final String KEYSPACE = "amber_bench_cluster";
  private static final Pattern ROWS_KIND =
      Pattern.compile(
          "^amber_write_statement_rows_count\\{[^}]*kind=\"([^\"]+)\"", Pattern.MULTILINE);

  /** One setup's figures; {@code rows} maps a statement kind to {statements, rows}. */
  record Setup(
      int nodes,
      String replication,
      BenchTopics.Window window,
      CpuLedger.Phase cpu,
      Map<String, double[]> rows,
      long diskBytes,
      long storedEvents) {
    double cassandraMillisPer1000() {
      double sum = 0;
      for (int i = 1; i <= nodes; i++) {
        sum += cpu.millisPer1000Events("Cassandra-" + i);
      }
      return sum;
    }

    double totalMillisPer1000() {
      return cpu.totalCores() * cpu.wallSeconds() * 1e6 / cpu.events();
    }

    double diskBytesPerEvent() {
      return (double) diskBytes / storedEvents;
    }
  }

  private final int events = BenchSettings.setting("cluster-events", 100_000);
  private final int warmup = BenchSettings.setting("cluster-warmup", 50_000);
  private final int devices = BenchSettings.setting("cluster-devices", 5_000);

  public static void main(String[] args) throws Exception {
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    ClusterCostBench bench = new ClusterCostBench();
    List<Setup> setups = new ArrayList<>();
    for (String n : BenchSettings.text("cluster-nodes", "1,3").split(",")) {
      int nodes = Integer.parseInt(n.trim());
      try (LocalRuntime runtime = new LocalRuntime(options, 0, nodes)) {
        runtime.start();
        setups.add(bench.measure(runtime));
      }
    }
    String md = bench.markdown(setups);
    Path dir =
        options
            .projectDir()
            .resolve(".bench-results")
            .resolve(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'")
                        .format(Instant.now().atOffset(ZoneOffset.UTC))
                    + "-cluster");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), md);
    System.out.println(md);
    System.out.println("Results: " + dir);
    System.exit(0);
  }

  private Setup measure(LocalRuntime runtime) throws Exception {
    CassandraCluster cluster = runtime.cluster();
    int nodes = cluster.size();
    cluster.dropKeyspace(KEYSPACE);
    String topic = "cluster-bench-" + UUID.randomUUID().toString().substring(0, 8);
    String group = topic + "-group";
    BenchTopics.create(runtime.kafkaBootstrap(), topic, topic + ".dlq");
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", runtime.cassandraContactPoint());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("cassandra.replication", cluster.replication());
    cfg.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", group);
    cfg.put("kafka.consumer.commit-interval", "200ms");
    cfg.put("media.enabled", "false");
    cfg.put("auth.enabled", "false");
    int port = io.ambergarden.localrt.Ports.free();
    cfg.put("http.port", Integer.toString(port));
    BenchService[] service = new BenchService[1];
    CpuLedger ledger = new CpuLedger();
    for (CassandraNode node : cluster.nodes()) {
      ledger.process("Cassandra-" + node.index(), () -> node.pid().flatMap(ProcessHandle::of));
    }
    ledger
        .process("Kafka", () -> runtime.kafka().pid().flatMap(ProcessHandle::of))
        .process("service", () -> Optional.ofNullable(service[0]).map(BenchService::handle));

    long now = System.currentTimeMillis();
    String prefix = "c" + nodes;
    BenchTopics.produce(
        runtime.kafkaBootstrap(),
        topic,
        BenchEvents.generate(prefix, "w", warmup, devices, now, 5));
    System.out.printf(
        "%d node(s), %s: warm-up on %,d events, then %,d measured%n",
        nodes, cluster.replication(), warmup, events);
    Path log =
        runtime.options().projectDir().resolve("target").resolve("bench-cluster-service.log");
    try (BenchService app = BenchService.start(cfg, port, IngestBench.SERVICE_JVM, log)) {
      service[0] = app;
      AtomicLong committed = new AtomicLong();
      BenchTopics.awaitCommitted(runtime.kafkaBootstrap(), group, topic, warmup, committed);
      ledger.awaitQuiet("Cassandra-1", 0.3, Duration.ofSeconds(5), Duration.ofSeconds(60));
      String before = app.metrics();
      List<BenchEvents.Spec> measured = BenchEvents.generate(prefix, events, devices, now, 2);
      CompletableFuture<Double> produced =
          CompletableFuture.supplyAsync(
              () -> BenchTopics.produce(runtime.kafkaBootstrap(), topic, measured));
      CpuLedger.Span[] cpu = new CpuLedger.Span[1];
      BenchTopics.Window window =
          BenchTopics.awaitCommitted(
              runtime.kafkaBootstrap(),
              group,
              topic,
              warmup,
              events,
              committed,
              produced::isDone,
              () -> cpu[0] = ledger.start(nodes + " node(s)"));
      produced.get(1, TimeUnit.MINUTES);
      CpuLedger.Phase phase = cpu[0].end(window.records());
      Map<String, double[]> rows = rowsPerStatement(before, app.metrics());
      app.close();
      service[0] = null;
      return new Setup(
          nodes,
          cluster.replication(),
          window,
          phase,
          rows,
          flushedBytes(cluster, KEYSPACE),
          (long) warmup + events);
    }
  }

  /** Per statement kind, the statements and rows written between the two scrapes. */
  static Map<String, double[]> rowsPerStatement(String before, String after) {
    Map<String, double[]> out = new TreeMap<>();
    Matcher m = ROWS_KIND.matcher(after);
    while (m.find()) {
      String label = "kind=\"" + m.group(1) + "\"";
      double statements =
          PrometheusText.sum(after, "amber_write_statement_rows_count", label)
              - PrometheusText.sum(before, "amber_write_statement_rows_count", label);
      double rows =
          PrometheusText.sum(after, "amber_write_statement_rows_sum", label)
              - PrometheusText.sum(before, "amber_write_statement_rows_sum", label);
      if (statements > 0) {
        out.put(m.group(1), new double[] {statements, rows});
      }
    }
    return out;
  }

  /** Flushes the keyspace on every node, then sums its data files over the nodes. */
  static long flushedBytes(CassandraCluster cluster, String keyspace) throws IOException {
    long bytes = 0;
    for (CassandraNode node : cluster.nodes()) {
      try (NodeJmx jmx = node.jmx()) {
        jmx.flush(keyspace);
      }
      Path data = node.dir().resolve("data").resolve(keyspace);
      if (Files.isDirectory(data)) {
        try (Stream<Path> files = Files.walk(data)) {
          bytes +=
              files
                  .filter(Files::isRegularFile)
                  .mapToLong(
                      p -> {
                        try {
                          return Files.size(p);
                        } catch (IOException e) {
                          return 0; // compacted away while we walked
                        }
                      })
                  .sum();
        }
      }
    }
    return bytes;
  }

  String markdown(List<Setup> setups) {
    StringBuilder md = new StringBuilder();
    md.append("# Cluster cost, ").append(Instant.now()).append("\n\n");
    md.append(
        String.format(
            "The same Kafka ingest through the service (its own JVM, %s): %,d warm-up events,"
                + " then %,d measured, %,d devices; setups one after the other on one machine"
                + " with %d cores. CPU from the kernel's accounting per process; disk after a"
                + " flush, summed over the nodes (before compaction settles).%n%n",
            String.join(" ", IngestBench.SERVICE_JVM),
            warmup,
            events,
            devices,
            Runtime.getRuntime().availableProcessors()));
    md.append("| | ");
    setups.forEach(
        s -> md.append(s.nodes()).append(" node(s), ").append(s.replication()).append(" | "));
    md.append(setups.size() > 1 ? "last / first |\n|---|" : "\n|---|");
    md.append("---:|".repeat(setups.size() + (setups.size() > 1 ? 1 : 0))).append('\n');
    row(md, "events/s", setups, s -> s.window().perSecond(), "%.0f");
    row(
        md,
        "CPU ms / 1000 events, Cassandra (all nodes)",
        setups,
        Setup::cassandraMillisPer1000,
        "%.0f");
    row(
        md,
        "CPU ms / 1000 events, Kafka",
        setups,
        s -> s.cpu().millisPer1000Events("Kafka"),
        "%.0f");
    row(
        md,
        "CPU ms / 1000 events, service",
        setups,
        s -> s.cpu().millisPer1000Events("service"),
        "%.0f");
    row(md, "CPU ms / 1000 events, whole system", setups, Setup::totalMillisPer1000, "%.0f");
    row(md, "cores busy", setups, s -> s.cpu().totalCores(), "%.2f");
    row(md, "disk bytes / event (all replicas)", setups, Setup::diskBytesPerEvent, "%.0f");
    row(
        md,
        "disk bytes / event / replica",
        setups,
        s -> s.diskBytesPerEvent() / Math.min(3, s.nodes()),
        "%.0f");
    List<String> kinds =
        setups.stream().flatMap(s -> s.rows().keySet().stream()).distinct().sorted().toList();
    for (String kind : kinds) {
      row(
          md,
          "rows per statement, " + kind,
          setups,
          s -> {
            double[] r = s.rows().get(kind);
            return r == null ? Double.NaN : r[1] / r[0];
          },
          "%.1f");
    }
    return md.toString();
  }

  private static void row(
      StringBuilder md,
      String label,
      List<Setup> setups,
      java.util.function.ToDoubleFunction<Setup> value,
      String format) {
    md.append("| ").append(label).append(" | ");
    double[] v = setups.stream().mapToDouble(value).toArray();
    Arrays.stream(v).forEach(x -> md.append(String.format(format, x)).append(" | "));
    if (v.length > 1) {
      md.append(String.format("%.2f", v[v.length - 1] / v[0])).append(" |");
    }
    md.append('\n');
  }
}
