package io.ambergarden.chaos;

import io.ambergarden.chaos.check.WritePath;
import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.net.Firewall;
import io.ambergarden.localrt.KafkaCluster;
import io.ambergarden.localrt.KafkaServerConfig;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.vertx.core.json.JsonObject;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code src/dev/chaos-in-netns.sh mvn -o -Pchaos}: a bounded workload against three Cassandra
 * nodes (RF 3, LOCAL_QUORUM), three Kafka brokers (RF 3, min.insync.replicas 2, combined
 * controllers) and three service instances as users run them (auth on, slot 0 in direct mode, the
 * others in kafka mode), while a seeded nemesis partitions, skews, kills and pauses nodes, brokers
 * and instances, alone, two at once and during each other's recovery. Then the checker reads every
 * table at ALL and through the API and writes .chaos-results/&lt;UTC&gt;/report.{json,md} and the
 * history; the exit status is non-zero when an invariant fails. Runs only inside its own network
 * namespace.
 */
public final class ChaosRun {
  private static final String KEYSPACE = "amber_chaos";
  private static final int PARTITIONS = 6;
  private static final String STARTUP_TIMEOUT = "amber.localrt.startup.timeout";
  private static final int DIRECT_SLOT = 0;

  /** Hours of events at the default rates; the ledger refuses past it and the run fails. */
  private static final int MAX_EVENTS = 2_000_000;

  public static void main(String[] args) throws Exception {
    ChaosSettings settings = ChaosSettings.fromSystem();
    System.out.printf(
        "[chaos] seed %d, %s, settings %s%n",
        settings.seed(), settings.duration(), settings.asMap());
    if (System.getProperty(STARTUP_TIMEOUT) == null
        && System.getenv("AMBER_LOCALRT_STARTUP_TIMEOUT") == null) {
      // a node restarted beside eight busy JVMs on two cores took over the default 3 min
      System.setProperty(STARTUP_TIMEOUT, FaultActions.NODE_START_DEADLINE.toSeconds() + "s");
    }
    LocalRuntimeOptions base = LocalRuntimeOptions.fromEnvironment();
    LocalRuntimeOptions options =
        base.withBaseDir(base.projectDir().resolve("target").resolve("chaos-runtime"));
    Instant started = Instant.now();
    Path results =
        base.projectDir()
            .resolve(".chaos-results")
            .resolve(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'")
                    .format(started.atOffset(ZoneOffset.UTC)));
    boolean passed;
    // a broker is also a controller: three JVMs fewer than dedicated controllers on 2 cores
    System.setProperty(KafkaCluster.TOPOLOGY_PROPERTY, "combined");
    try (Firewall firewall = Firewall.fromEnvironment();
        LocalRuntime runtime =
            new LocalRuntime(options, 0, settings.nodes(), KafkaServerConfig.CLUSTER_SIZE)) {
      passed = run(settings, runtime, firewall, results);
    }
    System.out.println("[chaos] report: " + results.resolve("report.md"));
    System.exit(passed ? 0 : 1);
  }

  private static boolean run(
      ChaosSettings settings, LocalRuntime runtime, Firewall firewall, Path results)
      throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String topic = "chaos-" + run;
    String group = topic + "-group";
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", runtime.cassandraContactPoint());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("cassandra.replication", runtime.cluster().replication());
    cfg.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", group);
    cfg.put("kafka.topic-partitions", Integer.toString(PARTITIONS));
    cfg.put("kafka.topic-replication", Integer.toString(KafkaServerConfig.CLUSTER_SIZE));
    // a killed instance's partitions move after 10 s, not the default 45 s: the run injects faults
    // instead of waiting for the group (as a deployment that replaces pods quickly would set)
    cfg.put("kafka.consumer.session-timeout", "10s");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.instances", "1");
    // auth on, as users run it: every request of the workload and the client faults carries a key
    String apiKey = ChaosKeys.write(ChaosKeys.file(runtime.options().baseDir()));
    cfg.put("auth.enabled", "true");
    cfg.put("auth.static-keys-file", ChaosKeys.file(runtime.options().baseDir()).toString());
    cfg.put("media.enabled", "false");
    // a SIGSTOPped instance outlives its leases within the hold (scan interval 5 s)
    cfg.put("rollup.lease-ttl", "15s");

    long hour = ChaosFindings.HOUR;
    long currentHour = Math.floorDiv(System.currentTimeMillis(), hour) * hour;
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < settings.devices(); i++) {
      devices.add("chaos-" + run + "-" + i);
    }
    // events follow the clock (the current hour, and the next one in a run crossing the hour),
    // and every 10th is late, in the hour two hours back, so closed hours reopen
    AckLedger ledger =
        AckLedger.live(
            devices,
            currentHour - 2 * hour,
            MAX_EVENTS,
            settings.seed(),
            System::currentTimeMillis,
            10);
    NemesisPlan.Topology topology =
        new NemesisPlan.Topology(
            settings.nodes(), settings.instances(), PARTITIONS, KafkaServerConfig.CLUSTER_SIZE);
    List<NemesisPlan.Step> plan = NemesisPlan.draw(settings.seed(), settings.duration(), topology);
    plan.forEach(f -> System.out.println("[chaos] planned " + f));

    // instance logs stay out of the committed report
    Path logs = runtime.options().baseDir().resolve("logs").resolve(results.getFileName());
    System.out.println("[chaos] instance logs: " + logs);
    ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
    try (ChaosSystem system =
        new ChaosSystem(runtime, firewall, apiKey, cfg, settings.instances(), logs, DIRECT_SLOT)) {
      runtime.start();
      System.out.println(runtime.cluster().status());
      runtime.cluster().dropKeyspace(KEYSPACE);
      system.start(0); // the first instance applies the schema, alone
      List<CompletableFuture<Void>> others = new ArrayList<>();
      for (int i = 1; i < settings.instances(); i++) {
        int slot = i;
        others.add(CompletableFuture.runAsync(() -> startQuietly(system, slot)));
      }
      others.forEach(CompletableFuture::join);
      scraper.scheduleAtFixedRate(system::scrapeAll, 5, 5, TimeUnit.SECONDS);

      Instant workloadStart = Instant.now();
      History history = new History(results.resolve("history.ndjson.gz"), History.DEFAULT_MAX_OPS);
      ChaosWorkload workload =
          new ChaosWorkload(settings, system, ledger, topic, history, slot -> slot == DIRECT_SLOT);
      ClientFaults clients =
          new ClientFaults(
              slot -> new InetSocketAddress("127.0.0.1", system.port(slot)),
              settings.instances(),
              apiKey,
              ledger,
              history,
              settings.seed(),
              slot -> slot == DIRECT_SLOT,
              ClientFaults.Settings.DEFAULT);
      Nemesis nemesis =
          new Nemesis(
              system,
              new FaultActions(system, topic, clients),
              ledger,
              workload,
              settings.recoverDeadline());
      workload.start();
      try {
        nemesis.run(plan, workloadStart.plus(settings.duration()));
      } finally {
        workload.close();
      }
      Instant workloadEnd = Instant.now();
      System.out.println("[chaos] workload stopped; healing everything and checking");
      ChaosFindings findings = new ChaosFindings();
      try {
        system.healAll();
        scraper.shutdown();
        system.scrapeAll();
        findings.recoveries(nemesis.outcomes());
        findings.partitionsProbed(nemesis.outcomes());
        findings.majorityLoss(nemesis.outcomes());
        findings.speculation(system.speculativeExecutions());
        // scraped again once the checker waited for the backlog and the counters
        Supplier<WritePath> writes =
            () -> {
              system.scrapeAll();
              // the product's defaults: kafka.consumer.max-in-flight 8000, max-poll-records 500
              return new WritePath(
                  system.sumOverInstances("amber_counter_journal_events_total"),
                  ChaosChecker.disruptions(nemesis.outcomes(), settings.instances(), 8000, 500),
                  0,
                  system.sumOverInstances("amber_counter_unknown_outcomes_total"),
                  system.unknownOutcomeEventsByCells());
            };
        new ChaosChecker(ledger, system, 0, settings.checkDeadline())
            .check(findings, KEYSPACE, topic, topic + ".dlq", group, history, writes);
      } catch (Exception e) {
        // the report is written anyway, saying why the check could not finish
        findings.crashed(e);
      }

      Map<String, Object> workloadFigures = new LinkedHashMap<>();
      long seconds = Math.max(1, Duration.between(workloadStart, workloadEnd).toSeconds());
      workloadFigures.put("seconds", seconds);
      workloadFigures.put("HTTP batches", workload.batches());
      workloadFigures.put("Kafka records (poison included)", workload.records());
      workloadFigures.put("acknowledged events per second", ledger.ackedCount() / seconds);
      workloadFigures.put("refused tries by outcome", workload.refusals());
      workloadFigures.put("poison records sent", ledger.poisonSent().size());
      workloadFigures.put("client faults by kind and outcome", clients.tally());
      long minutes = Math.max(1, seconds / 60);
      workloadFigures.put(
          "faults injected per minute",
          nemesis.outcomes().stream().mapToLong(o -> o.step().faults().size()).sum()
              / (double) minutes);
      JsonObject report =
          ChaosReport.json(
              settings, workloadStart, plan, nemesis.outcomes(), workloadFigures, findings);
      ChaosReport.write(results, report);
      System.out.println(ChaosReport.markdown(report));
      return findings.allHold();
    } finally {
      scraper.shutdownNow();
    }
  }

  private static void startQuietly(ChaosSystem system, int slot) {
    try {
      system.start(slot);
    } catch (Exception e) {
      throw new IllegalStateException("instance " + slot + " did not start", e);
    }
  }
}
