package io.ambergarden.bench;

import io.ambergarden.localrt.LocalRuntime;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Steady load, the cost users pay for: fixed-rate, open-loop windows at 0, 25, 50 and 75% of the
 * full rate (b) of the same run, events stamped with the time they are due ({@link
 * BenchEvents#streaming}). At each level a window without reads gives the cost ({@link SteadyCost}:
 * the 0% window is the idle floor, and the CPU until the servers are quiet again is booked to the
 * window that caused it), then a window with reads at the probe's fixed rate and a live probe gives
 * the latencies, measured from the requests' due times.
 */
final class SteadyLoadPhase {
  static final int[] PERCENTS = {0, 25, 50, 75};
  private static final int LIVE_EVENTS = 250;
  private static final int WARM_UP_SECONDS = 20;
  private static final double WARM_QUIET_CORES = 0.15;
  private static final String HARNESS = "harness";

  /** One load level: its rate, its cost, and the latencies with reads on. */
  record Step(int percent, double ratePerSecond, SteadyCost cost, LevelLatencies latencies) {}

  private final LocalRuntime runtime;
  private final String topic;
  private final int port;
  private final String prefix;
  private final int devices;
  private final CpuLedger ledger;
  private final HourRollups rollups;
  private final List<String> rollupLines = new ArrayList<>();
  private final int cores = Runtime.getRuntime().availableProcessors();
  private final List<Step> steps = new ArrayList<>();

  SteadyLoadPhase(
      LocalRuntime runtime,
      String topic,
      int port,
      String prefix,
      int devices,
      CpuLedger ledger,
      HourRollups rollups) {
    this.runtime = runtime;
    this.topic = topic;
    this.port = port;
    this.prefix = prefix;
    this.devices = devices;
    this.ledger = ledger;
    this.rollups = rollups;
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  /** Runs the levels from topic offset {@code base}; returns the offset after them. */
  long run(
      long base,
      double fullRate,
      AtomicLong committed,
      int costSeconds,
      int readSeconds,
      SoakPhase.ReadsDuring reads)
      throws Exception {
    long offset = base;
    // the first fixed-rate window of the first run cost twice the next one per event, harness and
    // Kafka included (a new producer, the streaming events' first use): warm those up unmeasured
    double warmRate = fullRate * PERCENTS[1] / 100;
    int warmCount = (int) (warmRate * WARM_UP_SECONDS);
    CpuLedger.Span warm = ledger.start("steady, warm-up at the first level's rate");
    offset += produce(offset, 0, "w", warmCount, warmRate, WARM_UP_SECONDS, committed);
    awaitQuietBeforeIdle();
    warm.end(warmCount);
    CpuLedger.Phase idle = null;
    for (int pct : PERCENTS) {
      double rate = fullRate * pct / 100;
      System.out.printf(
          "Steady load %d%%: %,.0f events/s, %d s without reads, then %d s with%n",
          pct, rate, costSeconds, readSeconds);
      int costCount = (int) (rate * costSeconds);
      // the level's windows, the waits for quiet between them and the live probe
      Duration level = Duration.ofSeconds(costSeconds + readSeconds + 120L);
      Optional<String> rollup = rollups.clear(String.format("steady %d%%", pct), level);
      rollup.ifPresent(rollupLines::add);
      if (idle == null && rollup.isPresent()) {
        awaitQuietBeforeIdle();
      }
      if (idle != null) {
        // the last level's read window left compaction behind: not this window's cost
        CpuLedger.Span settle = ledger.start(String.format("steady %d%%, settle before", pct));
        awaitQuiet(idle);
        settle.end(0);
      }
      CpuLedger.Span span = ledger.start(String.format("steady %d%%, no reads", pct));
      offset += produce(offset, pct, "c", costCount, rate, costSeconds, committed);
      CpuLedger.Phase load = span.end(costCount);
      CpuLedger.Phase tail = null;
      if (pct == 0) {
        idle = load;
      } else {
        CpuLedger.Span after = ledger.start(String.format("steady %d%%, until quiet", pct));
        awaitQuiet(idle);
        tail = after.end(0);
      }
      SteadyCost cost = pct == 0 ? null : SteadyCost.of(load, tail, idle, HARNESS, cores);
      int readCount = (int) (rate * readSeconds);
      long from = offset;
      LiveLatencyProbe.Summary[] live = new LiveLatencyProbe.Summary[1];
      List<ReadLatencyProbe.Summary> s =
          reads.during(
              String.format("steady %d%%", pct),
              () -> {
                CompletableFuture<LiveLatencyProbe.Summary> probe =
                    LiveLatencyProbe.start(runtime.kafkaBootstrap(), topic, port, LIVE_EVENTS, 50);
                produce(from, pct, "r", readCount, rate, readSeconds, committed);
                live[0] = probe.get(2, TimeUnit.MINUTES);
                BenchTopics.awaitAllCommitted(
                    runtime.kafkaBootstrap(),
                    topic + "-group",
                    topic,
                    from,
                    readCount + LIVE_EVENTS,
                    committed);
              });
      offset += readCount + LIVE_EVENTS;
      steps.add(new Step(pct, rate, cost, LevelLatencies.of(s, live[0])));
    }
    return offset;
  }

  /** Before the idle floor: until Cassandra falls to the warm-up's quiet (2 minutes at most). */
  private void awaitQuietBeforeIdle() throws InterruptedException {
    ledger.awaitQuiet("Cassandra", WARM_QUIET_CORES, Duration.ofSeconds(5), Duration.ofMinutes(2));
  }

  /** Until Cassandra is back within 0.05 cores of its idle floor over 5 s (3 minutes at most). */
  private void awaitQuiet(CpuLedger.Phase idle) throws InterruptedException {
    ledger.awaitQuiet(
        "Cassandra", idle.cores("Cassandra") + 0.05, Duration.ofSeconds(5), Duration.ofMinutes(3));
  }

  /**
   * {@code count} events at {@code rate} (or, at 0%, nothing for {@code seconds}), waited for until
   * the service committed them; returns the records produced.
   */
  private long produce(
      long from, int pct, String kind, int count, double rate, int seconds, AtomicLong committed)
      throws Exception {
    if (count == 0) {
      TimeUnit.SECONDS.sleep(seconds); // the idle level's measurement window
      return 0;
    }
    List<BenchEvents.Spec> events =
        BenchEvents.streaming(
            prefix,
            "s" + pct + kind,
            count,
            devices,
            System.currentTimeMillis(),
            rate,
            Math.max(0, BenchSettings.latePercent()),
            300 + pct);
    BenchTopics.produceAtRate(runtime.kafkaBootstrap(), topic, events, rate);
    BenchTopics.awaitAllCommitted(
        runtime.kafkaBootstrap(), topic + "-group", topic, from, count, committed);
    return count;
  }

  /** One report line per level. */
  List<String> lines() {
    List<String> out = new ArrayList<>(rollupLines);
    for (Step st : steps) {
      SteadyCost c = st.cost();
      out.add(
          String.format(
              "steady %d%%: %,.0f events/s; %s; read p99 page %.1f ms, latest %.1f ms,"
                  + " no storage %.1f ms; ingest-to-live p99 %.1f ms",
              st.percent(),
              st.ratePerSecond(),
              c == null
                  ? "the idle floor"
                  : String.format(
                      "CPU per 1000 events %.0f ms (%s), harness %.0f ms apart, utilisation %.0f%%",
                      c.systemMillisPer1000(),
                      perProcess(c.millisPer1000()),
                      c.harnessMillisPer1000(),
                      100 * c.utilisation()),
              st.latencies().pageP99(),
              st.latencies().latestP99(),
              st.latencies().noStorageP99(),
              st.latencies().liveP99()));
    }
    return out;
  }

  /** "Cassandra 242, Kafka 39, …" (ms), the harness left out: it is reported apart. */
  static String perProcess(Map<String, Double> millisPer1000) {
    return millisPer1000.entrySet().stream()
        .filter(e -> !HARNESS.equals(e.getKey()))
        .sorted(Map.Entry.comparingByKey())
        .map(e -> String.format("%s %.0f", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  JsonArray json() {
    JsonArray out = new JsonArray();
    for (Step st : steps) {
      JsonObject row =
          new JsonObject()
              .put("percent", st.percent())
              .put("eventsPerSecond", st.ratePerSecond())
              .put("pageP50Millis", finite(st.latencies().pageP50()))
              .put("pageP99Millis", finite(st.latencies().pageP99()))
              .put("latestP50Millis", finite(st.latencies().latestP50()))
              .put("latestP99Millis", finite(st.latencies().latestP99()))
              .put("liveP50Millis", finite(st.latencies().liveP50()))
              .put("liveP99Millis", finite(st.latencies().liveP99()))
              .put("noStorageP50Millis", finite(st.latencies().noStorageP50()))
              .put("noStorageP99Millis", finite(st.latencies().noStorageP99()));
      SteadyCost c = st.cost();
      if (c != null) {
        JsonObject perProcess = new JsonObject();
        c.millisPer1000().forEach((k, v) -> perProcess.put(k, finite(v)));
        row.put(
            "cost",
            new JsonObject()
                .put("events", c.events())
                .put("wallSeconds", c.wallSeconds())
                .put("millisPer1000", perProcess)
                .put("systemMillisPer1000", finite(c.systemMillisPer1000()))
                .put("harnessMillisPer1000", finite(c.harnessMillisPer1000()))
                .put("utilisation", finite(c.utilisation())));
      }
      out.add(row);
    }
    return out;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
