package io.ambergarden.bench;

import io.ambergarden.config.ConfigLoader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** The bench's knobs: -Damber.bench.NAME or AMBER_BENCH_NAME, the property winning. */
record BenchSettings(
    int events,
    int devices,
    int warmup,
    int concurrency,
    int httpEvents,
    int httpPort,
    int naiveSeconds,
    int readRate,
    int serviceWarmup,
    int halfRateSeconds,
    int idleReadSeconds,
    int settleSeconds) {

  static BenchSettings fromSystem() {
    return new BenchSettings(
        setting("events", 200_000),
        setting("devices", 2_000),
        setting("warmup", 300_000),
        setting("concurrency", 256),
        setting("http-events", 50_000),
        setting("http-port", 18_080),
        setting("naive-seconds", 60),
        setting("read-rate", 50),
        setting("service-warmup", 100_000),
        setting("half-rate-seconds", 40),
        setting("idle-read-seconds", 15),
        setting("settle-seconds", 120));
  }

  /**
   * -Damber.bench.soak=20m: seconds of half-rate ingest with reads after (e); 0 (the default) skips
   * it.
   */
  static int soakSeconds() {
    String v = text("soak", "0").trim();
    if (v.equals("0")) {
      return 0;
    }
    return (int)
        io.ambergarden.config.RawConfig.parseDuration(v)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "amber.bench.soak must be a duration such as 20m, got " + v))
            .toSeconds();
  }

  /**
   * -Damber.bench.late-percent=P: that share of every event set is late (an hour closed over an
   * hour ago, as a device's backlog or a consumer catching up), the rest in the current hour; -1
   * (the default) spreads event times over the last 30 minutes, so the late share depends on the
   * minute of the hour the run starts at.
   */
  static int latePercent() {
    int p = setting("late-percent", -1);
    if (p < -1 || p > 100) {
      throw new IllegalArgumentException("amber.bench.late-percent must be -1 or 0-100, got " + p);
    }
    return p;
  }

  /**
   * -Damber.bench.compaction-throughput=N: Cassandra's compaction throughput cap in MiB/s for the
   * whole run (nodetool setcompactionthroughput; 0 unthrottled); -1 (the default) keeps the node's
   * 64 MiB/s.
   */
  static int compactionThroughput() {
    int t = setting("compaction-throughput", -1);
    if (t < -1) {
      throw new IllegalArgumentException(
          "amber.bench.compaction-throughput must be -1 or a MiB/s cap >= 0, got " + t);
    }
    return t;
  }

  /**
   * The run's other -Damber.* properties (the local servers' and the service's settings), sorted,
   * so that a run's results say what it changed; the amber.bench.* ones are in {@link #asMap()}.
   */
  static Map<String, String> overrides(Properties props) {
    // results are committed: a service secret (the only secrets among amber.* properties) is
    // recorded as set, not shown
    Map<String, String> m = new TreeMap<>();
    for (String k : props.stringPropertyNames()) {
      if (k.startsWith("amber.") && !k.startsWith("amber.bench.")) {
        boolean secret = ConfigLoader.isSecret(k.substring("amber.".length()));
        m.put(k, secret ? "(set, not shown)" : props.getProperty(k));
      }
    }
    return m;
  }

  static int setting(String name, int def) {
    return Integer.parseInt(text(name, Integer.toString(def)));
  }

  /** -Damber.bench.NAME, else AMBER_BENCH_NAME, else {@code def}. */
  static String text(String name, String def) {
    String env = System.getenv("AMBER_BENCH_" + name.toUpperCase().replace('-', '_'));
    return System.getProperty("amber.bench." + name, env == null ? def : env);
  }

  /** Property name to value, in the order docs/performance/benchmark.md lists them. */
  Map<String, Integer> asMap() {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("amber.bench.events", events);
    m.put("amber.bench.devices", devices);
    m.put("amber.bench.warmup", warmup);
    m.put("amber.bench.service-warmup", serviceWarmup);
    m.put("amber.bench.concurrency", concurrency);
    m.put("amber.bench.http-events", httpEvents);
    m.put("amber.bench.http-port", httpPort);
    m.put("amber.bench.naive-seconds", naiveSeconds);
    m.put("amber.bench.read-rate", readRate);
    m.put("amber.bench.half-rate-seconds", halfRateSeconds);
    m.put("amber.bench.idle-read-seconds", idleReadSeconds);
    m.put("amber.bench.settle-seconds", settleSeconds);
    int late = latePercent();
    if (late >= 0) {
      m.put("amber.bench.late-percent", late);
    }
    int compaction = compactionThroughput();
    if (compaction >= 0) {
      m.put("amber.bench.compaction-throughput", compaction);
    }
    return m;
  }
}
