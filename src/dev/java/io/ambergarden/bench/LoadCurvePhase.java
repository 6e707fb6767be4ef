package io.ambergarden.bench;

import io.ambergarden.localrt.LocalRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The latency-against-load curve: reads and ingest-to-live latency at 0, 25, 50, 75 and 100% of the
 * full rate (b) reached, {@code seconds} per step, each step producing new events at its rate while
 * (e) reads and a live probe (250 events at 50/s on a WebSocket) run. Report lines and a PNG.
 */
final class LoadCurvePhase {
  static final int[] PERCENTS = {0, 25, 50, 75, 100};
  private static final int LIVE_EVENTS = 250;

  /** One step's figures. */
  record Step(int percent, double eventsPerSecond, LevelLatencies latencies) {}

  private final LocalRuntime runtime;
  private final String topic;
  private final int port;
  private final String prefix;
  private final int devices;
  private final List<Step> steps = new ArrayList<>();

  LoadCurvePhase(LocalRuntime runtime, String topic, int port, String prefix, int devices) {
    this.runtime = runtime;
    this.topic = topic;
    this.port = port;
    this.prefix = prefix;
    this.devices = devices;
  }

  /** Runs the steps from topic offset {@code base}; returns the offset after them. */
  long run(
      long base, double fullRate, AtomicLong committed, int seconds, SoakPhase.ReadsDuring reads)
      throws Exception {
    long offset = base;
    for (int pct : PERCENTS) {
      double rate = fullRate * pct / 100;
      int count = (int) (rate * seconds);
      List<BenchEvents.Spec> events =
          BenchEvents.generate(
              prefix, "l" + pct, count, devices, System.currentTimeMillis(), 200 + pct);
      long from = offset;
      System.out.printf(
          "Load curve: %d%% of the full rate, %,.0f events/s for %d s%n", pct, rate, seconds);
      LiveLatencyProbe.Summary[] live = new LiveLatencyProbe.Summary[1];
      long[] wallNanos = new long[1];
      List<ReadLatencyProbe.Summary> s =
          reads.during(
              String.format("load %d%%", pct),
              () -> {
                CompletableFuture<LiveLatencyProbe.Summary> probe =
                    LiveLatencyProbe.start(runtime.kafkaBootstrap(), topic, port, LIVE_EVENTS, 50);
                long t0 = System.nanoTime();
                if (count > 0) {
                  BenchTopics.produceAtRate(runtime.kafkaBootstrap(), topic, events, rate);
                } else {
                  TimeUnit.SECONDS.sleep(seconds); // the idle step's measurement window
                }
                BenchTopics.awaitAllCommitted(
                    runtime.kafkaBootstrap(),
                    topic + "-group",
                    topic,
                    from,
                    count + LIVE_EVENTS,
                    committed);
                wallNanos[0] = System.nanoTime() - t0;
                live[0] = probe.get(2, TimeUnit.MINUTES);
              });
      offset += count + LIVE_EVENTS;
      steps.add(new Step(pct, count / (wallNanos[0] / 1e9), LevelLatencies.of(s, live[0])));
    }
    return offset;
  }

  /** One report line per step. */
  List<String> lines() {
    List<String> out = new ArrayList<>();
    for (Step st : steps) {
      out.add(
          String.format(
              "load curve %d%%: %,.0f events/s; read p50/p99 page %.1f/%.1f ms, latest %.1f/%.1f"
                  + " ms; ingest-to-live p50/p99 %.1f/%.1f ms",
              st.percent(),
              st.eventsPerSecond(),
              st.latencies().pageP50(),
              st.latencies().pageP99(),
              st.latencies().latestP50(),
              st.latencies().latestP99(),
              st.latencies().liveP50(),
              st.latencies().liveP99()));
    }
    return out;
  }

  /** load-curve.png: p99 of the reads and of ingest-to-live against the load, in percent. */
  void writePng(Path file) throws java.io.IOException {
    TimeSeries page = new TimeSeries("p99 GET /devices/{id}/events?limit=100");
    TimeSeries latest = new TimeSeries("p99 GET /devices/{id}/latest");
    TimeSeries live = new TimeSeries("p99 ingest-to-live (WebSocket)");
    TimeSeries livePe = new TimeSeries("p50 ingest-to-live (WebSocket)");
    for (Step st : steps) {
      page.add(st.percent(), st.latencies().pageP99());
      latest.add(st.percent(), st.latencies().latestP99());
      live.add(st.percent(), st.latencies().liveP99());
      livePe.add(st.percent(), st.latencies().liveP50());
    }
    Plot.writePng(
        Plot.render(
            "Amber Garden: latency against load",
            "load, % of the full rate (b) reached",
            List.of(
                new Plot.Panel("Read latency p99", "ms", List.of(page, latest)),
                new Plot.Panel("Ingest-to-live latency", "ms", List.of(livePe, live))),
            1000,
            700),
        file);
  }
}
