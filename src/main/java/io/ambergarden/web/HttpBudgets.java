package io.ambergarden.web;

import io.ambergarden.config.AmberConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the HTTP side may hold at once, for the whole process (every HTTP verticle instance shares
 * it): ingest requests and their body bytes, open connections, and the bytes of live-feed replays.
 * Each is taken before the memory is used, so concurrent large bodies or replays cannot add up past
 * the limit whatever the instance count.
 */
public final class HttpBudgets {
  /** Why an HTTP request was refused before its work started. */
  public enum Shed {
    REQUESTS,
    BYTES,
    CONNECTIONS,
    BODY_TIMEOUT,
    REPLAY_BYTES
  }

  private final AdmissionBudget ingestRequests;
  private final AdmissionBudget ingestBytes;
  private final AdmissionBudget connections;
  private final AdmissionBudget replayBytes;
  private final ExportLoad exports;
  private final java.util.Map<Shed, Counter> shed = new java.util.EnumMap<>(Shed.class);

  public HttpBudgets(
      int maxIngestRequests,
      long maxIngestBytes,
      int maxConnections,
      long maxReplayBytes,
      int maxExports,
      MeterRegistry registry) {
    ingestRequests = new AdmissionBudget(maxIngestRequests);
    ingestBytes = new AdmissionBudget(maxIngestBytes);
    connections = new AdmissionBudget(maxConnections);
    replayBytes = new AdmissionBudget(maxReplayBytes);
    exports = new ExportLoad(maxExports, registry);
    gauge(registry, "amber.http.ingest.requests", ingestRequests, "Ingest requests admitted");
    gauge(registry, "amber.http.ingest.bytes", ingestBytes, "Body bytes of admitted ingest");
    gauge(registry, "amber.http.connections", connections, "Open HTTP connections");
    gauge(registry, "amber.live.replay.bytes", replayBytes, "Bytes held by live-feed replays");
    for (Shed s : Shed.values()) {
      shed.put(
          s,
          Counter.builder("amber.http.shed")
              .tag("reason", s.name().toLowerCase(java.util.Locale.ROOT))
              .description("Requests refused before their work started, by reason")
              .register(registry));
    }
  }

  public static HttpBudgets of(AmberConfig config, MeterRegistry registry) {
    return new HttpBudgets(
        config.ingest().maxInFlightRequests(),
        config.ingest().maxInFlightBytes(),
        config.http().maxConnections(),
        config.live().replayMaxBytes(),
        config.export().maxConcurrent(),
        registry);
  }

  private static void gauge(MeterRegistry r, String name, AdmissionBudget b, String what) {
    Gauge.builder(name, b, AdmissionBudget::used).description(what + " (in use)").register(r);
    Gauge.builder(name + ".max", b, AdmissionBudget::max)
        .description(what + " (limit)")
        .register(r);
  }

  public AdmissionBudget ingestRequests() {
    return ingestRequests;
  }

  public AdmissionBudget ingestBytes() {
    return ingestBytes;
  }

  /** The exports' slots and what they hold. */
  public ExportLoad exports() {
    return exports;
  }

  public AdmissionBudget connections() {
    return connections;
  }

  public AdmissionBudget replayBytes() {
    return replayBytes;
  }

  public void shed(Shed reason) {
    shed.get(reason).increment();
  }
}
