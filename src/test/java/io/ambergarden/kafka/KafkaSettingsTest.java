package io.ambergarden.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {
  @Test
  void plaintextAddsNothing() {
    AmberConfig.Kafka k = ConfigLoader.load(Map.of(), new Properties(), Map.of()).kafka();
    assertThat(KafkaSettings.producer(k, "p")).doesNotContainKey("security.protocol");
  }

  @Test
  void theSessionTimeoutReachesTheConsumer() {
    AmberConfig.Kafka k =
        ConfigLoader.load(
                Map.of("AMBER_KAFKA_CONSUMER_SESSION_TIMEOUT", "10s"), new Properties(), Map.of())
            .kafka();
    assertThat(KafkaSettings.consumer(k)).containsEntry("session.timeout.ms", "10000");
  }

  @Test
  void saslSslSettingsReachEveryClient() {
    AmberConfig.Kafka k =
        ConfigLoader.load(
                Map.of(
                    "AMBER_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                    "AMBER_KAFKA_SASL_USERNAME", "amber",
                    "AMBER_KAFKA_SASL_PASSWORD", "pa\"ss\\word",
                    "AMBER_KAFKA_SSL_TRUSTSTORE_TYPE", "PEM"),
                new Properties(),
                Map.of())
            .kafka();
    for (Map<String, String> client :
        java.util.List.of(
            KafkaSettings.consumer(k), KafkaSettings.producer(k, "p"), KafkaSettings.admin(k))) {
      assertThat(client)
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
          .containsEntry("ssl.endpoint.identification.algorithm", "https")
          .containsKey("sasl.jaas.config");
    }
    // Kafka's own parser reads the quoted password back exactly
    String jaas = KafkaSettings.admin(k).get("sasl.jaas.config");
    var entry =
        JaasContext.loadClientContext(Map.of("sasl.jaas.config", new Password(jaas)))
            .configurationEntries()
            .get(0);
    assertThat(entry.getOptions().get("username")).isEqualTo("amber");
    assertThat(entry.getOptions().get("password")).isEqualTo("pa\"ss\\word");
    assertThat(entry.getLoginModuleName())
        .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule");
  }
}
