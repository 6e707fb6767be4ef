package io.ambergarden.chaos;

import io.ambergarden.chaos.check.WritePath;
import io.ambergarden.chaos.history.History;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import io.vertx.core.json.JsonObject;
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

/**
 * {@code mvn -Pchaos}: a bounded workload against three Cassandra nodes (RF 3, LOCAL_QUORUM), one
 * broker and three service instances in the default ingest mode, while a seeded nemesis kills and
 * pauses nodes, restarts the broker, and kills or stops instances. Then the checker reads
 * everything back through the public API and writes .chaos-results/&lt;UTC&gt;/report.{json,md};
 * the exit status is non-zero when an invariant fails. See README "Running as a cluster".
 */
public final class ChaosRun {
  private static final String KEYSPACE = "amber_chaos";

  public static void main(String[] args) throws Exception {
    ChaosSettings settings = ChaosSettings.fromSystem();
    System.out.printf(
        "[chaos] seed %d, %s, settings %s%n",
        settings.seed(), settings.duration(), settings.asMap());
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
    try (LocalRuntime runtime = new LocalRuntime(options, 0, settings.nodes())) {
      runtime.start();
      System.out.println(runtime.cluster().status());
      passed = run(settings, runtime, results);
    }
    System.out.println("[chaos] report: " + results.resolve("report.md"));
    System.exit(passed ? 0 : 1);
  }

  private static boolean run(ChaosSettings settings, LocalRuntime runtime, Path results)
      throws Exception {
    runtime.cluster().dropKeyspace(KEYSPACE);
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
    cfg.put("kafka.topic-partitions", "6");
    // a killed instance's partitions move after 10 s, not the default 45 s: the run injects faults
    // instead of waiting for the group (as a deployment that replaces pods quickly would set)
    cfg.put("kafka.consumer.session-timeout", "10s");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.instances", "1");
    // storage, broker and process faults are the subject; credentials and images are tested apart
    cfg.put("auth.enabled", "false");
    cfg.put("media.enabled", "false");

    long hour = ChaosFindings.HOUR;
    long now = System.currentTimeMillis();
    long currentHour = Math.floorDiv(now, hour) * hour;
    // event time starts a minute before the end of the hour two hours back, and stays before the
    // current hour: every event lands in a closed hour whose rollup the checker can judge
    long baseTs = currentHour - hour - 60_000;
    int maxEvents = (int) ((currentHour - baseTs) / AckLedger.TS_STEP_MS) - 1;
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < settings.devices(); i++) {
      devices.add("chaos-" + run + "-" + i);
    }
    AckLedger ledger = new AckLedger(devices, baseTs, maxEvents, settings.seed());
    List<NemesisPlan.Fault> plan =
        NemesisPlan.draw(
            settings.seed(), settings.duration(), settings.nodes(), settings.instances());
    plan.forEach(f -> System.out.println("[chaos] planned " + f));

    // instance logs stay out of the committed report
    Path logs = runtime.options().baseDir().resolve("logs").resolve(results.getFileName());
    System.out.println("[chaos] instance logs: " + logs);
    ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
    try (ChaosSystem system = new ChaosSystem(runtime, cfg, settings.instances(), logs)) {
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
      // every slot runs the default kafka mode here
      ChaosWorkload workload =
          new ChaosWorkload(settings, system, ledger, topic, history, slot -> false);
      Nemesis nemesis = new Nemesis(system, ledger, workload, settings.recoverDeadline());
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
        findings.speculation(system.speculativeExecutions());
        // the product's defaults: kafka.consumer.max-in-flight 8000, max-poll-records 500
        WritePath writes =
            new WritePath(
                system.sumOverInstances("amber_counter_journal_events_total"),
                ChaosChecker.disruptions(nemesis.outcomes(), settings.instances(), 8000, 500),
                0,
                system.sumOverInstances("amber_counter_unknown_outcomes_total"));
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
