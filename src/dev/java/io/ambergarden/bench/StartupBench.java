package io.ambergarden.bench;

import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How long a service instance takes from process start to /health/ready 200, per set of JVM
 * options, with Cassandra and Kafka already up and one other instance in the consumer group (as a
 * chaos replacement finds them). The settings run interleaved, the order rotating each round, so
 * all see the same background load on a shared machine; each start is stopped with SIGTERM (it
 * leaves the group at once) before the next. Reports per setting the median and range of
 * start-to-ready, of the process's CPU seconds at ready and of the logged startup steps, and the
 * load average. With {@code bench.startup.kill=true} it then SIGKILLs an instance and times its
 * replacement, which must wait for the group to drop the dead member.
 *
 * <p>{@code java -cp <runtime classpath> io.ambergarden.bench.StartupBench}, inside {@code flock
 * /work/it.lock}; {@code -Dbench.startup.rounds=3}, {@code -Dbench.startup.settings=a,b} (names
 * from {@link #SETTINGS}), {@code -Dbench.startup.nodes=1}, {@code -Dbench.startup.busy-threads=0}:
 * threads that spin through the measured starts, as the servers and load of a chaos run keep the
 * cores busy.
 */
public final class StartupBench {
  /** A set of JVM options, with or without the dynamic CDS archive. */
  record Setting(String name, List<String> jvm, boolean cds) {}

  static final Map<String, Setting> SETTINGS = settings();

  private static Map<String, Setting> settings() {
    Map<String, Setting> m = new LinkedHashMap<>();
    List<Setting> all =
        List.of(
            new Setting("current", List.of("-Xmx512m", "-XX:TieredStopAtLevel=1"), false),
            new Setting("current+cds", List.of("-Xmx512m", "-XX:TieredStopAtLevel=1"), true),
            new Setting("tiered", List.of("-Xmx512m"), false),
            new Setting("tiered+cds", List.of("-Xmx512m"), true),
            new Setting(
                "c1+cds+serial",
                List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                true),
            new Setting(
                "c1+cds+256m", List.of("-Xmx256m", "-Xms256m", "-XX:TieredStopAtLevel=1"), true),
            new Setting("c1+cds+384m", List.of("-Xmx384m", "-XX:TieredStopAtLevel=1"), true),
            new Setting(
                "c1+cds+cc1",
                List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1"),
                true),
            new Setting(
                "c1+cds+xss256k", List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-Xss256k"), true),
            new Setting(
                "c1+cds+serial+cc1",
                List.of(
                    "-Xmx512m",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-XX:CICompilerCount=1"),
                true));
    all.forEach(s -> m.put(s.name(), s));
    return m;
  }

  /** One start: seconds to ready, CPU seconds at ready, logged steps, load average before. */
  record Start(String setting, double ready, double cpu, Map<String, Double> steps, double load) {}

  private final LocalRuntime runtime;
  private final Path dir;
  private final Map<String, String> config = new HashMap<>();
  private final ClassDataSharing cds;
  private int starts;

  private StartupBench(LocalRuntime runtime, Path dir) throws IOException {
    this.runtime = runtime;
    this.dir = dir;
    String topic = "startup-" + UUID.randomUUID().toString().substring(0, 8);
    config.put("cassandra.contact-points", runtime.cassandraContactPoint());
    config.put("cassandra.keyspace", "amber_startup");
    config.put("cassandra.replication", runtime.cluster().replication());
    config.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    config.put("kafka.topic", topic);
    config.put("kafka.dlq-topic", topic + ".dlq");
    config.put("kafka.group-id", topic + "-group");
    config.put("kafka.topic-partitions", "6");
    config.put("http.host", "127.0.0.1");
    config.put("http.instances", "1");
    config.put("auth.enabled", "false");
    config.put("media.enabled", "false");
    this.cds = ClassDataSharing.in(dir.resolve("cds"), BenchService.harnessClasspath());
  }

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.startup.rounds", 3);
    int nodes = Integer.getInteger("bench.startup.nodes", 1);
    List<Setting> chosen = new ArrayList<>();
    for (String name :
        System.getProperty("bench.startup.settings", String.join(",", SETTINGS.keySet()))
            .split(",")) {
      Setting s = SETTINGS.get(name.trim());
      if (s == null) {
        throw new IllegalArgumentException("no setting " + name + "; known: " + SETTINGS.keySet());
      }
      chosen.add(s);
    }
    LocalRuntimeOptions base = LocalRuntimeOptions.fromEnvironment();
    Path dir = base.projectDir().resolve("target").resolve("startup-runtime");
    LocalRuntimeOptions options = base.withBaseDir(dir);
    try (LocalRuntime runtime = new LocalRuntime(options, 0, nodes)) {
      runtime.start();
      StartupBench bench = new StartupBench(runtime, dir);
      bench.run(
          chosen,
          rounds,
          Boolean.getBoolean("bench.startup.kill"),
          Integer.getInteger("bench.startup.busy-threads", 0));
    }
    System.exit(0);
  }

  private void run(List<Setting> chosen, int rounds, boolean kill, int busyThreads)
      throws Exception {
    // the first instance applies the schema, creates the topics and writes the CDS archive at exit
    Setting first = chosen.stream().filter(Setting::cds).findFirst().orElse(chosen.get(0));
    System.out.printf("[startup] archive run (%s), schema and topics%n", first.name());
    Start archiveRun = start(first, true, cds.dumpOptions());
    print(archiveRun);
    System.out.printf("[startup] archive written: %s (%s)%n", cds.archived(), cds.archive());
    AtomicBoolean busy = new AtomicBoolean(true);
    for (int i = 0; i < busyThreads; i++) {
      Thread t = new Thread(() -> spin(busy), "busy-" + i);
      t.setDaemon(true);
      t.start();
    }
    try (BenchService member = launch(SETTINGS.get("current"), false, List.of())) {
      List<Start> all = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < chosen.size(); i++) {
          Setting s = chosen.get((i + r) % chosen.size());
          Start st = start(s, false, List.of());
          print(st);
          all.add(st);
        }
      }
      table(chosen, all);
      if (kill) {
        for (Setting s : List.of(chosen.get(0), chosen.get(chosen.size() - 1))) {
          BenchService victim = launch(s, false, List.of());
          victim.crash();
          System.out.printf("[startup] killed an instance (%s); its replacement:%n", s.name());
          print(start(s, false, List.of()));
        }
      }
    } finally {
      busy.set(false);
    }
  }

  /** Burns a core until told to stop. */
  private static void spin(AtomicBoolean busy) {
    long x = 0;
    while (busy.get()) {
      for (int i = 0; i < 1_000_000; i++) {
        x += i ^ (x >>> 3);
      }
    }
    if (x == 42) {
      System.out.println(); // keeps the loop from being optimised away
    }
  }

  private BenchService launch(Setting s, boolean schema, List<String> extra)
      throws IOException, InterruptedException {
    Map<String, String> cfg = new HashMap<>(config);
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    cfg.put("http.port", Integer.toString(port));
    cfg.put("cassandra.schema.apply", Boolean.toString(schema));
    List<String> jvm = new ArrayList<>(s.jvm());
    jvm.addAll(extra);
    if (s.cds()) {
      jvm.addAll(cds.useOptions());
    }
    Path log = dir.resolve("logs").resolve("instance-" + starts++ + "-" + s.name() + ".log");
    return BenchService.start(
        cfg, port, jvm, s.cds() ? cds.classpath() : BenchService.harnessClasspath(), log);
  }

  /** Starts, times and stops (SIGTERM) one instance. */
  private Start start(Setting s, boolean schema, List<String> extra)
      throws IOException, InterruptedException {
    double load = loadAverage();
    int n = starts;
    LocalTime wall = LocalTime.now();
    long t0 = System.nanoTime();
    BenchService service = launch(s, schema, extra);
    double ready = (System.nanoTime() - t0) / 1e9;
    double cpu =
        service
            .handle()
            .info()
            .totalCpuDuration()
            .map(d -> d.toMillis() / 1000.0)
            .orElse(Double.NaN);
    service.close();
    Path log = dir.resolve("logs").resolve("instance-" + n + "-" + s.name() + ".log");
    Map<String, Double> steps =
        StartupLog.offsets(Files.readAllLines(log), wall, StartupLog.MARKERS);
    return new Start(s.name(), ready, cpu, steps, load);
  }

  private static void print(Start st) {
    System.out.printf(
        "[startup] %-20s ready %5.1f s  cpu %5.1f s  steps %s  load %.2f%n",
        st.setting(), st.ready(), st.cpu(), st.steps(), st.load());
  }

  private static void table(List<Setting> chosen, List<Start> all) {
    List<String> steps = new ArrayList<>(StartupLog.MARKERS.keySet());
    StringBuilder head = new StringBuilder("| setting | n | ready s: median (min-max) | cpu s |");
    steps.forEach(step -> head.append(' ').append(step).append(" s |"));
    head.append(" load avg |");
    System.out.println(head);
    System.out.println("|---".repeat(5 + steps.size()) + "|");
    for (Setting s : chosen) {
      List<Start> mine = all.stream().filter(st -> st.setting().equals(s.name())).toList();
      StringBuilder row = new StringBuilder();
      Spread ready = Spread.of(mine.stream().map(Start::ready).toList());
      row.append("| ").append(s.name()).append(" `").append(String.join(" ", s.jvm()));
      row.append(s.cds() ? " +AppCDS" : "").append("` | ").append(ready.n());
      row.append(" | ").append(ready.text());
      row.append(" | ").append(Spread.of(mine.stream().map(Start::cpu).toList()).text());
      for (String step : steps) {
        row.append(" | ")
            .append(
                Spread.of(
                        mine.stream().map(st -> st.steps().getOrDefault(step, Double.NaN)).toList())
                    .text());
      }
      row.append(" | ").append(Spread.of(mine.stream().map(Start::load).toList()).text());
      System.out.println(row.append(" |"));
    }
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(
          Arrays.asList(Files.readString(Path.of("/proc/loadavg")).split(" ")).get(0));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
