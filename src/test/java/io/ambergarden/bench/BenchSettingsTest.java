package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

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
}
