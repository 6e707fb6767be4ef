package io.ambergarden.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.AmberConfig.IngestMode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class HealthStateTest {
  private static HealthState allGood(IngestMode mode) {
    HealthState h = new HealthState(mode);
    h.cassandraUsable(true);
    h.kafkaUsable(true);
    h.consumerExpected(true);
    h.consumerJoined(true);
    return h;
  }

  @Test
  void inKafkaModeAStoreOutageLeavesThePodReadyButSaysSo() {
    HealthState h = allGood(IngestMode.KAFKA);
    h.cassandraUsable(false);
    h.writesBlocked(true);
    h.consumerStalled(true, false);
    assertThat(h.ready()).isTrue();
    assertThat(h.cassandraKnownDown()).isTrue();
    JsonObject json = h.toJson();
    assertThat(json.getString("status")).isEqualTo("UP");
    assertThat(json.getJsonObject("checks").getString("cassandra")).isEqualTo("DOWN");
    assertThat(json.getJsonObject("checks").getString("writes")).isEqualTo("FAILING");
    assertThat(json.getJsonObject("checks").getString("consumer")).isEqualTo("STALLED");
    assertThat(json.getJsonArray("gates").getList())
        .containsExactly("lifecycle", "kafka", "deadLetterGuard", "consumer");
  }

  @Test
  void inKafkaModeKafkaTheGuardAConsumerOutOfItsGroupAndShutdownGate() {
    HealthState h = allGood(IngestMode.KAFKA);
    h.kafkaUsable(false);
    assertThat(h.ready()).isFalse();
    h.kafkaUsable(true);
    h.deadLetterGuardTripped(true);
    assertThat(h.ready()).isFalse();
    h.deadLetterGuardTripped(false);
    h.consumerJoined(false);
    assertThat(h.ready()).isFalse();
    h.consumerJoined(true);
    assertThat(h.ready()).isTrue();
    h.shuttingDown(true);
    assertThat(h.ready()).isFalse();
  }

  @Test
  void inKafkaModeAConsumerStalledWhileCassandraAnswersGatesAndTheBodySaysStalled() {
    HealthState h = allGood(IngestMode.KAFKA);
    h.consumerStalled(true, true);
    assertThat(h.ready()).isFalse();
    JsonObject json = h.toJson();
    assertThat(json.getString("status")).isEqualTo("DOWN");
    assertThat(json.getJsonObject("checks").getString("consumer")).isEqualTo("STALLED");
    // the same stall during a Cassandra outage is the consumer waiting for the store (F13)
    h.cassandraUsable(false);
    assertThat(h.ready()).isTrue();
    h.cassandraUsable(true);
    // catching up right after an outage: stalled, but not for a whole timeout with Cassandra up
    h.consumerStalled(true, false);
    assertThat(h.ready()).isTrue();
    assertThat(h.toJson().getJsonObject("checks").getString("consumer")).isEqualTo("STALLED");
    h.consumerStalled(false, false);
    assertThat(h.ready()).isTrue();
  }

  @Test
  void inDirectModeEveryCheckGates() {
    HealthState h = allGood(IngestMode.DIRECT);
    assertThat(h.ready()).isTrue();
    h.cassandraUsable(false);
    assertThat(h.ready()).isFalse();
    h.cassandraUsable(true);
    h.writesBlocked(true);
    assertThat(h.ready()).isFalse();
    h.writesBlocked(false);
    h.consumerStalled(true, false);
    assertThat(h.ready()).isFalse();
    assertThat(h.toJson().getJsonArray("gates").getList())
        .containsExactly(
            "lifecycle", "kafka", "cassandra", "writes", "deadLetterGuard", "consumer");
  }

  @Test
  void readsFailFastOnlyOnceTheProbeHasSeenTheStoreFail() {
    HealthState h = new HealthState(IngestMode.KAFKA);
    assertThat(h.cassandraKnownDown()).as("before the first probe").isFalse();
    h.cassandraUsable(false);
    assertThat(h.cassandraKnownDown()).isTrue();
    h.cassandraUsable(true);
    assertThat(h.cassandraKnownDown()).isFalse();
  }

  @Test
  void gaugesShowEachCheckAndTransitionsCountFlapping() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    HealthState h = new HealthState(IngestMode.DIRECT).bindTo(registry);
    h.cassandraUsable(true);
    h.kafkaUsable(true);
    assertThat(registry.get("amber.ready").gauge().value()).isEqualTo(1);
    for (int i = 0; i < 3; i++) {
      h.cassandraUsable(false);
      h.cassandraUsable(true);
    }
    assertThat(registry.get("amber.readiness.transitions").counter().count()).isEqualTo(7);
    h.cassandraUsable(false);
    assertThat(registry.get("amber.ready").gauge().value()).isZero();
    assertThat(registry.get("amber.health.check").tag("check", "cassandra").gauge().value())
        .isZero();
    assertThat(registry.get("amber.health.check").tag("check", "kafka").gauge().value())
        .isEqualTo(1);
  }
}
