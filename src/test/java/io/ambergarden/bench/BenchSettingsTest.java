package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BenchSettingsTest {

  @Test
  void overridesAreTheOtherAmberPropertiesSorted() {
    Properties props = new Properties();
    props.setProperty("amber.writer.max-concurrent-statements", "16");
    props.setProperty("amber.localrt.cassandra.request-threads", "16");
    props.setProperty("amber.bench.soak", "20m");
    props.setProperty("java.version", "17");
    assertThat(BenchSettings.overrides(props))
        .containsExactly(
            Map.entry("amber.localrt.cassandra.request-threads", "16"),
            Map.entry("amber.writer.max-concurrent-statements", "16"));
  }

  @Test
  void credentialsAreRecordedAsSetNotShown() {
    Properties props = new Properties();
    props.setProperty("amber.cassandra.password", "hunter2");
    props.setProperty("amber.kafka.ssl.keystore-password", "hunter3");
    assertThat(BenchSettings.overrides(props))
        .containsOnlyKeys("amber.cassandra.password", "amber.kafka.ssl.keystore-password")
        .doesNotContainValue("hunter2")
        .doesNotContainValue("hunter3");
  }

  @Test
  void theSteadyLevelsFollowTheRunsFullRateUnlessAFixedOneIsSet() {
    assertThat(IngestBench.steadyFullRate(3624.0)).isEqualTo(3624.0);
    try {
      System.setProperty("amber.bench.steady-full-rate", "5978");
      assertThat(IngestBench.steadyFullRate(3624.0)).isEqualTo(5978.0);
      System.setProperty("amber.bench.steady-full-rate", "-1");
      assertThatThrownBy(() -> IngestBench.steadyFullRate(3624.0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("steady-full-rate");
    } finally {
      System.clearProperty("amber.bench.steady-full-rate");
    }
  }
}
