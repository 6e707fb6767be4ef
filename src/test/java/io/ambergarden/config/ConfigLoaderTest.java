package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

  private static AmberConfig load(Map<String, String> env) {
    return ConfigLoader.load(env, new Properties(), Map.of());
  }

  @Test
  void defaultsLoadIntoATypedConfig() {
    AmberConfig c = load(Map.of());
    assertThat(c.http().port()).isEqualTo(8080);
    assertThat(c.ingest().mode()).isEqualTo(AmberConfig.IngestMode.KAFKA);
    assertThat(c.events().retention()).isEqualTo(Duration.ofDays(180));
    assertThat(c.cassandra().writeConsistency()).isEqualTo("LOCAL_QUORUM");
    assertThat(c.cassandra().replication())
        .isEqualTo("{'class': 'SimpleStrategy', 'replication_factor': 1}");
    assertThat(c.events().isAbnormal(503, null)).isTrue();
    assertThat(c.events().isAbnormal(200, "ALARM")).isTrue();
    assertThat(c.events().isAbnormal(200, "normal")).isFalse();
  }

  @Test
  void environmentOverridesDefaultsAndSystemPropertiesOverrideEnvironment() {
    Properties sys = new Properties();
    sys.setProperty("amber.http.port", "9100");
    AmberConfig c =
        ConfigLoader.load(
            Map.of("AMBER_HTTP_PORT", "9000", "AMBER_INGEST_MODE", "direct"), sys, Map.of());
    assertThat(c.http().port()).isEqualTo(9100);
    assertThat(c.ingest().mode()).isEqualTo(AmberConfig.IngestMode.DIRECT);
  }

  @Test
  void aBadValueStopsStartupNamingTheKey() {
    assertThatThrownBy(() -> load(Map.of("AMBER_HTTP_PORT", "eighty")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("http.port:");
    assertThatThrownBy(() -> load(Map.of("AMBER_EVENT_RETENTION", "180")))
        .hasMessageStartingWith("event.retention:");
    assertThatThrownBy(() -> load(Map.of("AMBER_CASSANDRA_CONSISTENCY_WRITE", "MOST")))
        .hasMessageStartingWith("cassandra.consistency.write:");
    assertThatThrownBy(() -> load(Map.of("AMBER_CASSANDRA_KEYSPACE", "amber; DROP")))
        .hasMessageStartingWith("cassandra.keyspace:");
  }

  @Test
  void portZeroMeansAFreePortChosenAtListenAndIsAccepted() {
    AmberConfig c = load(Map.of("AMBER_HTTP_PORT", "0", "AMBER_HTTP_MANAGEMENT_PORT", "0"));
    assertThat(c.http().port()).isZero();
    // both 0 do not clash: each server gets a port of its own
    assertThat(c.access().managementPort()).isZero();
    assertThat(c.access().managementPortEnabled()).isTrue();
    for (String bad : new String[] {"-1", "65536"}) {
      assertThatThrownBy(() -> load(Map.of("AMBER_HTTP_PORT", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("http.port:");
      assertThatThrownBy(() -> load(Map.of("AMBER_HTTP_MANAGEMENT_PORT", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("http.management-port:");
    }
    assertThatThrownBy(
            () -> load(Map.of("AMBER_HTTP_PORT", "9000", "AMBER_HTTP_MANAGEMENT_PORT", "9000")))
        .hasMessageStartingWith("http.management-port:");
  }

  @Test
  void aMarkSafetyShorterThanTheDriverRequestTimeoutIsRefused() {
    assertThatThrownBy(
            () ->
                load(
                    Map.of(
                        "AMBER_ROLLUP_MARK_SAFETY", "4s", "AMBER_CASSANDRA_REQUEST_TIMEOUT", "5s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("rollup.mark-safety:");
    assertThat(
            load(Map.of("AMBER_ROLLUP_MARK_SAFETY", "5s", "AMBER_CASSANDRA_REQUEST_TIMEOUT", "5s"))
                .rollups()
                .markSafety())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void anUnsentRetryWindowAsLongAsTheWriteRequestIsRefused() {
    assertThatThrownBy(
            () ->
                load(
                    Map.of(
                        "AMBER_WRITER_RETRY_UNSENT_WINDOW", "5s",
                        "AMBER_WRITER_REQUEST_TIMEOUT", "5s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("writer.retry.unsent-window:");
    assertThat(
            load(Map.of(
                    "AMBER_WRITER_RETRY_UNSENT_WINDOW", "4s",
                    "AMBER_WRITER_REQUEST_TIMEOUT", "5s"))
                .writer()
                .retryUnsentWindow())
        .isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void anUnknownAmberEnvironmentVariableIsRejectedAsATypo() {
    assertThatThrownBy(() -> load(Map.of("AMBER_HTTP_PROT", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("AMBER_HTTP_PROT:");
  }

  @Test
  void toolingVariablesAreNotServiceConfig() {
    assertThat(load(Map.of("AMBER_LOCALRT_CQL_PORT", "1")).http().port()).isEqualTo(8080);
  }

  @Test
  void networkTopologyReplicationBecomesACqlMap() {
    AmberConfig c =
        load(Map.of("AMBER_CASSANDRA_REPLICATION", "NetworkTopologyStrategy:dc1=3,dc2=2"));
    assertThat(c.cassandra().replication())
        .isEqualTo("{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}");
    assertThatThrownBy(
            () -> load(Map.of("AMBER_CASSANDRA_REPLICATION", "NetworkTopologyStrategy:dc1='3'}")))
        .hasMessageStartingWith("cassandra.replication:");
  }

  @Test
  void theSecretIsRedactedInDumpsAndErrors() {
    RawConfig raw =
        ConfigLoader.raw(
            Map.of("AMBER_CASSANDRA_USERNAME", "amber", "AMBER_CASSANDRA_PASSWORD", "s3cret"),
            new Properties(),
            Map.of());
    assertThat(raw.redacted().get("cassandra.password")).isEqualTo("******");
    assertThat(AmberConfig.from(raw).cassandra().toString()).doesNotContain("s3cret");
  }

  @Test
  void everyKeyHasAnEnvironmentName() {
    assertThat(ConfigLoader.envName("kafka.dlq-guard.max-ratio"))
        .isEqualTo("AMBER_KAFKA_DLQ_GUARD_MAX_RATIO");
  }
}
