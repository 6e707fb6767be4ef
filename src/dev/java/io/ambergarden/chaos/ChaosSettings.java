package io.ambergarden.chaos;

import io.ambergarden.config.RawConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The chaos run's knobs: -Damber.chaos.NAME or AMBER_CHAOS_NAME, the property winning. A run
 * without a seed draws one and prints it; pass it back to replay the same schedule and workload.
 */
public record ChaosSettings(
    Duration duration,
    long seed,
    int nodes,
    int instances,
    int devices,
    int httpBatchesPerSecond,
    int httpBatch,
    int kafkaRecordsPerSecond,
    int duplicateEvery,
    int poisonEvery,
    Duration recoverDeadline,
    Duration checkDeadline) {

  public ChaosSettings {
    if (nodes < 3) {
      throw new IllegalArgumentException("amber.chaos.nodes must be at least 3 (RF 3, quorum 2)");
    }
    if (instances < 2) {
      throw new IllegalArgumentException(
          "amber.chaos.instances must be at least 2: one is always killed at some point");
    }
  }

  public static ChaosSettings fromSystem() {
    String seed = text("seed", "");
    return new ChaosSettings(
        duration("duration", "10m"),
        seed.isEmpty() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seed),
        integer("nodes", 3),
        integer("instances", 3),
        integer("devices", 120),
        integer("http-batches-per-second", 5),
        integer("http-batch", 20),
        integer("kafka-records-per-second", 50),
        integer("duplicate-every", 20),
        integer("poison-every", 100),
        duration("recover-deadline", "4m"),
        duration("check-deadline", "5m"));
  }

  /** Property name to value, for the report. */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("amber.chaos.duration", duration.toString());
    m.put("amber.chaos.seed", seed);
    m.put("amber.chaos.nodes", nodes);
    m.put("amber.chaos.instances", instances);
    m.put("amber.chaos.devices", devices);
    m.put("amber.chaos.http-batches-per-second", httpBatchesPerSecond);
    m.put("amber.chaos.http-batch", httpBatch);
    m.put("amber.chaos.kafka-records-per-second", kafkaRecordsPerSecond);
    m.put("amber.chaos.duplicate-every", duplicateEvery);
    m.put("amber.chaos.poison-every", poisonEvery);
    m.put("amber.chaos.recover-deadline", recoverDeadline.toString());
    m.put("amber.chaos.check-deadline", checkDeadline.toString());
    return m;
  }

  private static int integer(String name, int def) {
    return Integer.parseInt(text(name, Integer.toString(def)));
  }

  private static Duration duration(String name, String def) {
    String v = text(name, def);
    return RawConfig.parseDuration(v)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "amber.chaos." + name + " must be a duration such as 90s or 10m, got " + v));
  }

  private static String text(String name, String def) {
    String env = System.getenv("AMBER_CHAOS_" + name.toUpperCase().replace('-', '_'));
    return System.getProperty("amber.chaos." + name, env == null ? def : env);
  }
}
