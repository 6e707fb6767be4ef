package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecurityConfigTest {
  @TempDir Path dir;

  private static AmberConfig load(Map<String, String> overrides) {
    return ConfigLoader.load(Map.of(), new Properties(), overrides);
  }

  @Test
  void authIsOnByDefaultWithoutJwtTlsOrManagementPort() {
    SecurityConfig.Access a = load(Map.of()).access();
    assertThat(a.enabled()).isTrue();
    assertThat(a.jwt().enabled()).isFalse();
    assertThat(a.tls().enabled()).isFalse();
    assertThat(a.managementPortEnabled()).isFalse();
    assertThat(a.corsAllowedOrigins()).isEmpty();
    assertThat(load(Map.of()).kafka().security().protocol()).isEqualTo("PLAINTEXT");
  }

  @Test
  void jwtNeedsAnIssuerAnAudienceAndOneKeySource() throws Exception {
    Path pem = Files.writeString(dir.resolve("k.pem"), "x");
    Map<String, String> m = new HashMap<>(Map.of("auth.jwt.public-key-file", pem.toString()));
    assertThatThrownBy(() -> load(m)).hasMessageStartingWith("auth.jwt.issuer:");
    m.put("auth.jwt.issuer", "https://id");
    assertThatThrownBy(() -> load(m)).hasMessageStartingWith("auth.jwt.audience:");
    m.put("auth.jwt.audience", "amber");
    assertThat(load(m).access().jwt().enabled()).isTrue();
    m.put("auth.jwt.jwks-url", "https://id/jwks");
    assertThatThrownBy(() -> load(m)).hasMessageStartingWith("auth.jwt.jwks-url:");
    assertThatThrownBy(() -> load(Map.of("auth.jwt.jwks-url", "http://id.example/jwks")))
        .hasMessageContaining("https://");
    assertThatThrownBy(() -> load(Map.of("auth.jwt.public-key-file", "/no/such.pem")))
        .hasMessageStartingWith("auth.jwt.public-key-file: no readable file");
  }

  @Test
  void tlsFilesGoTogetherAndMustExist() throws Exception {
    Path cert = Files.writeString(dir.resolve("c.pem"), "x");
    assertThatThrownBy(() -> load(Map.of("http.tls.cert-file", cert.toString())))
        .hasMessageStartingWith("http.tls.key-file:");
    assertThatThrownBy(() -> load(Map.of("http.tls.cert-file", "/nope")))
        .hasMessageStartingWith("http.tls.cert-file:");
  }

  @Test
  void corsTakesOriginsOnly() {
    assertThat(
            load(Map.of("http.cors.allowed-origins", "https://a.example, http://b:8080"))
                .access()
                .corsAllowedOrigins())
        .containsExactly("https://a.example", "http://b:8080");
    assertThatThrownBy(() -> load(Map.of("http.cors.allowed-origins", "*")))
        .hasMessageStartingWith("http.cors.allowed-origins:");
    assertThatThrownBy(() -> load(Map.of("http.cors.allowed-origins", "https://a/x")))
        .hasMessageStartingWith("http.cors.allowed-origins:");
  }

  @Test
  void revocationCannotBeDelayedPastFourSeconds() {
    assertThatThrownBy(() -> load(Map.of("auth.key-cache.refresh", "10s")))
        .hasMessageStartingWith("auth.key-cache.refresh:");
    assertThatThrownBy(() -> load(Map.of("auth.ticket-ttl", "2m")))
        .hasMessageStartingWith("auth.ticket-ttl:");
  }

  @Test
  void moreThanOneReplicaNeedsACursorKey() {
    assertThatThrownBy(() -> load(Map.of("service.replicas", "3")))
        .hasMessageStartingWith("query.cursor-key:")
        .hasMessageContaining("service.replicas is 3");
    assertThat(
            load(Map.of("service.replicas", "3", "query.cursor-key", "0123456789abcdef0123"))
                .replicas())
        .isEqualTo(3);
  }

  @Test
  void kafkaSaslNeedsCredentialsAndKnownNames() {
    assertThatThrownBy(() -> load(Map.of("kafka.security.protocol", "SASL_SSL")))
        .hasMessageStartingWith("kafka.sasl.username:");
    assertThatThrownBy(
            () ->
                load(Map.of("kafka.security.protocol", "SASL_SSL", "kafka.sasl.username", "amber")))
        .hasMessageStartingWith("kafka.sasl.password:");
    assertThatThrownBy(() -> load(Map.of("kafka.security.protocol", "SASL_TLS")))
        .hasMessageStartingWith("kafka.security.protocol:");
    assertThatThrownBy(() -> load(Map.of("kafka.sasl.mechanism", "GSSAPI")))
        .hasMessageStartingWith("kafka.sasl.mechanism:");
  }

  @Test
  void cassandraRolesAreIdentifiersAndPasswordsGoWithTheirStores() {
    assertThat(
            load(Map.of("cassandra.schema.grant-to", "amber_service, reporting"))
                .cassandra()
                .security()
                .grantTo())
        .containsExactly("amber_service", "reporting");
    assertThatThrownBy(() -> load(Map.of("cassandra.schema.grant-to", "x; DROP")))
        .hasMessageStartingWith("cassandra.schema.grant-to:");
    assertThatThrownBy(() -> load(Map.of("cassandra.schema.username", "schema")))
        .hasMessageStartingWith("cassandra.schema.password:");
  }

  @Test
  void secretsAreRefusedAsSystemPropertiesAndRedactedEverywhere() {
    Properties sys = new Properties();
    sys.setProperty("amber.kafka.sasl.password", "hunter2");
    assertThatThrownBy(() -> ConfigLoader.load(Map.of(), sys, Map.of()))
        .hasMessageStartingWith("kafka.sasl.password: is a secret")
        .hasMessageNotContaining("hunter2");
    Map<String, String> env =
        Map.of(
            "AMBER_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
            "AMBER_KAFKA_SASL_USERNAME", "amber",
            "AMBER_KAFKA_SASL_PASSWORD", "hunter2",
            "AMBER_CASSANDRA_SCHEMA_USERNAME", "schema",
            "AMBER_CASSANDRA_SCHEMA_PASSWORD", "s3cret-schema",
            "AMBER_CASSANDRA_SSL_TRUSTSTORE_PASSWORD", "s3cret-trust");
    AmberConfig c = ConfigLoader.load(env, new Properties(), Map.of());
    String dump = c.raw().redacted().toString() + c.kafka() + c.cassandra() + c;
    assertThat(dump).doesNotContain("hunter2", "s3cret-schema", "s3cret-trust");
    assertThat(c.raw().redacted()).containsEntry("kafka.sasl.password", "******");
  }

  @Test
  void trustedProxiesAreAddressesOrRangesAndStartingWithoutCassandraNeedsKafkaMode() {
    SecurityConfig.KeyLookup k =
        load(Map.of("http.trusted-proxies", "10.0.0.0/8, 192.168.1.7")).access().keyLookup();
    assertThat(k.trustedProxies())
        .containsExactly(AddressRange.parse("10.0.0.0/8"), AddressRange.parse("192.168.1.7"));
    assertThatThrownBy(() -> load(Map.of("http.trusted-proxies", "ingress.local")))
        .hasMessageStartingWith("http.trusted-proxies:");
    assertThatThrownBy(
            () -> load(Map.of("ingest.start-without-cassandra", "true", "ingest.mode", "direct")))
        .hasMessageStartingWith("ingest.start-without-cassandra:");
    assertThat(
            load(Map.of("ingest.start-without-cassandra", "true")).ingest().startWithoutCassandra())
        .isTrue();
    assertThatThrownBy(() -> load(Map.of("auth.static-keys-file", "/nonexistent/keys.json")))
        .hasMessageStartingWith("auth.static-keys-file:");
  }
}
