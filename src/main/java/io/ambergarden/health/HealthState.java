package io.ambergarden.health;

import io.ambergarden.config.AmberConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What readiness is made of. Written by the probes and the consumer, read by /health/ready and the
 * read routes; thread-safe.
 *
 * <p>Which checks gate readiness depends on the ingest mode. In {@code kafka} mode HTTP ingest
 * needs only Kafka (it is the buffer in front of Cassandra), so a Cassandra outage, failing writes
 * or a consumer waiting for the store leave the pod ready; reads answer 503 on their own. A
 * consumer that makes no progress while Cassandra answers is stuck, and gates. In {@code direct}
 * mode a 202 needs Cassandra, so every check gates.
 */
public final class HealthState {
  /** A check, under the name /health/ready reports it. */
  public enum Check {
    LIFECYCLE("lifecycle"),
    KAFKA("kafka"),
    CASSANDRA("cassandra"),
    WRITES("writes"),
    DEAD_LETTER_GUARD("deadLetterGuard"),
    CONSUMER("consumer");

    private final String json;

    Check(String json) {
      this.json = json;
    }

    public String jsonName() {
      return json;
    }
  }

  private final AmberConfig.IngestMode mode;
  private final Set<Check> gates;
  private volatile boolean cassandraUsable;
  private volatile boolean cassandraKnownDown;
  private volatile boolean kafkaUsable;
  private volatile boolean consumerExpected;
  private volatile boolean consumerJoined;
  private volatile boolean deadLetterGuardTripped;
  private volatile boolean writesBlocked;
  private volatile boolean consumerStalled;
  private volatile boolean consumerStuck;
  private volatile boolean shuttingDown;
  private boolean lastReady;
  private Counter transitions;

  public HealthState(AmberConfig.IngestMode mode) {
    this.mode = mode;
    this.gates =
        mode == AmberConfig.IngestMode.KAFKA
            ? EnumSet.of(Check.LIFECYCLE, Check.KAFKA, Check.DEAD_LETTER_GUARD, Check.CONSUMER)
            : EnumSet.allOf(Check.class);
  }

  /**
   * Exports amber.ready (1/0), amber.health.check{check} (1 passing, 0 failing) and
   * amber.readiness.transitions (flapping shows as a fast-growing count).
   */
  public HealthState bindTo(MeterRegistry registry) {
    Gauge.builder("amber.ready", this, h -> h.ready() ? 1 : 0)
        .description("1 while /health/ready answers 200")
        .register(registry);
    for (Check c : Check.values()) {
      Gauge.builder("amber.health.check", this, h -> h.failing(c) ? 0 : 1)
          .tag("check", c.jsonName())
          .description("1 while the check passes, 0 while it fails (gating or not)")
          .register(registry);
    }
    transitions =
        Counter.builder("amber.readiness.transitions")
            .description("Times readiness changed between ready and not ready")
            .register(registry);
    return this;
  }

  public void cassandraUsable(boolean v) {
    cassandraUsable = v;
    cassandraKnownDown = !v;
    changed();
  }

  public void kafkaUsable(boolean v) {
    kafkaUsable = v;
    changed();
  }

  public void consumerExpected(boolean v) {
    consumerExpected = v;
    changed();
  }

  public void consumerJoined(boolean v) {
    consumerJoined = v;
    changed();
  }

  public void deadLetterGuardTripped(boolean v) {
    deadLetterGuardTripped = v;
    changed();
  }

  /** The consumer's circuit breaker is open: writes are failing. */
  public void writesBlocked(boolean v) {
    writesBlocked = v;
    changed();
  }

  /**
   * The consumer has records in flight or lag, and none finished within
   * kafka.consumer.stall-timeout ({@code stalled}); {@code stuck} if Cassandra answered all that
   * time, so the consumer is not just waiting for the store.
   */
  public void consumerStalled(boolean stalled, boolean stuck) {
    consumerStalled = stalled;
    consumerStuck = stalled && stuck;
    changed();
  }

  public void shuttingDown(boolean v) {
    shuttingDown = v;
    changed();
  }

  public boolean deadLetterGuardTripped() {
    return deadLetterGuardTripped;
  }

  /**
   * True once the probe has seen Cassandra fail, until it sees it answer again (not before the
   * first probe): reads then fail fast instead of waiting for a driver timeout.
   */
  public boolean cassandraKnownDown() {
    return cassandraKnownDown;
  }

  /** The checks that gate readiness in this ingest mode, in the order /health/ready lists them. */
  public List<Check> gates() {
    return List.copyOf(gates);
  }

  public boolean ready() {
    for (Check c : gates) {
      if (failing(c)) {
        return false;
      }
    }
    return true;
  }

  private boolean failing(Check c) {
    return switch (c) {
      case LIFECYCLE -> shuttingDown;
      case KAFKA -> !kafkaUsable;
      case CASSANDRA -> !cassandraUsable;
      case WRITES -> writesBlocked;
      case DEAD_LETTER_GUARD -> deadLetterGuardTripped;
      // in kafka mode a consumer stalled while the store is down is waiting for it (HTTP ingest
      // goes on into Kafka): reported, not gating; stalled with the store up, it is stuck
      case CONSUMER ->
          consumerExpected
              && (!consumerJoined
                  || (mode == AmberConfig.IngestMode.DIRECT
                      ? consumerStalled
                      : consumerStuck && cassandraUsable));
    };
  }

  private synchronized void changed() {
    boolean now = ready();
    if (now != lastReady && transitions != null) {
      transitions.increment();
    }
    lastReady = now;
  }

  public JsonObject toJson() {
    JsonObject checks =
        new JsonObject()
            .put("cassandra", cassandraUsable ? "UP" : "DOWN")
            .put("kafka", kafkaUsable ? "UP" : "DOWN")
            .put("writes", writesBlocked ? "FAILING" : "UP")
            .put("deadLetterGuard", deadLetterGuardTripped ? "TRIPPED" : "OK");
    if (consumerExpected) {
      checks.put(
          "consumer", !consumerJoined ? "NOT_JOINED" : consumerStalled ? "STALLED" : "JOINED");
    }
    if (shuttingDown) {
      checks.put("lifecycle", "SHUTTING_DOWN");
    }
    JsonArray gating = new JsonArray();
    gates.forEach(c -> gating.add(c.jsonName()));
    return new JsonObject()
        .put("status", ready() ? "UP" : "DOWN")
        .put("mode", mode.name().toLowerCase(java.util.Locale.ROOT))
        .put("gates", gating)
        .put("checks", checks);
  }
}
