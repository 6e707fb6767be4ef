package io.ambergarden.health;

import io.vertx.core.json.JsonObject;

/**
 * What readiness is made of. Written by the probes and the consumer, read by /health/ready;
 * thread-safe.
 */
public final class HealthState {
  private volatile boolean cassandraUsable;
  private volatile boolean kafkaUsable;
  private volatile boolean consumerExpected;
  private volatile boolean consumerJoined;
  private volatile boolean deadLetterGuardTripped;
  private volatile boolean writesBlocked;
  private volatile boolean consumerStalled;
  private volatile boolean shuttingDown;

  public void cassandraUsable(boolean v) {
    cassandraUsable = v;
  }

  public void kafkaUsable(boolean v) {
    kafkaUsable = v;
  }

  public void consumerExpected(boolean v) {
    consumerExpected = v;
  }

  public void consumerJoined(boolean v) {
    consumerJoined = v;
  }

  public void deadLetterGuardTripped(boolean v) {
    deadLetterGuardTripped = v;
  }

  /** The consumer's circuit breaker is open: writes are failing. */
  public void writesBlocked(boolean v) {
    writesBlocked = v;
  }

  /** Records are in flight but none finished within kafka.consumer.stall-timeout. */
  public void consumerStalled(boolean v) {
    consumerStalled = v;
  }

  public void shuttingDown(boolean v) {
    shuttingDown = v;
  }

  public boolean deadLetterGuardTripped() {
    return deadLetterGuardTripped;
  }

  public boolean ready() {
    return !shuttingDown
        && cassandraUsable
        && kafkaUsable
        && !deadLetterGuardTripped
        && !writesBlocked
        && (!consumerExpected || (consumerJoined && !consumerStalled));
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
    return new JsonObject().put("status", ready() ? "UP" : "DOWN").put("checks", checks);
  }
}
