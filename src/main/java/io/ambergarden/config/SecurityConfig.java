package io.ambergarden.config;

import java.time.Duration;
import java.util.List;

/**
 * The security settings: who may call the HTTP API and how it is served ({@link Access}), and how
 * the service proves itself to Cassandra ({@link CassandraSecurity}) and Kafka ({@link
 * KafkaSecurity}). Secrets are never printed: every record holding one masks it in toString.
 */
public final class SecurityConfig {
  private SecurityConfig() {}

  static final String MASK = "******";

  static String mask(String secret) {
    return secret.isEmpty() ? "" : MASK;
  }

  /** The HTTP side: credentials, rates, tickets, CORS, TLS and the management port. */
  public record Access(
      boolean enabled,
      int keyCacheSize,
      Duration keyCacheRefresh,
      Duration keyCacheMaxStale,
      int defaultRatePerSecond,
      int maxTrackedBuckets,
      Duration ticketTtl,
      Jwt jwt,
      List<String> corsAllowedOrigins,
      HttpTls tls,
      int managementPort,
      KeyLookup keyLookup) {

    /** No management port: /metrics is served on the API port and needs the admin scope. */
    public static final int NO_MANAGEMENT_PORT = -1;

    public boolean managementPortEnabled() {
      return managementPort != NO_MANAGEMENT_PORT;
    }
  }

  /**
   * What guards the key store: ids known not to exist (remembered for {@code negativeTtl}), failed
   * authentications allowed per client address, the proxies whose X-Forwarded-For is believed, and
   * keys from a mounted file that need no store.
   */
  public record KeyLookup(
      int negativeSize,
      Duration negativeTtl,
      int addressFailuresPerMinute,
      int addressMaxTracked,
      List<AddressRange> trustedProxies,
      String staticKeysFile) {}

  /**
   * JWT bearer tokens; off unless a public key file or a JWKS URL is set. {@code fleetWideScopes}:
   * scope names whose tokens may name no devices and then reach every device.
   */
  public record Jwt(
      String publicKeyFile,
      String jwksUrl,
      Duration jwksRefresh,
      String issuer,
      String audience,
      Duration leeway,
      List<String> fleetWideScopes) {
    public boolean enabled() {
      return !publicKeyFile.isEmpty() || !jwksUrl.isEmpty();
    }
  }

  /** TLS of the HTTP server from PEM files; off when no certificate file is set. */
  public record HttpTls(String certFile, String keyFile, Duration reloadInterval) {
    public boolean enabled() {
      return !certFile.isEmpty();
    }
  }

  /** The schema applier's role and client TLS towards Cassandra. */
  public record CassandraSecurity(
      String schemaUsername,
      String schemaPassword,
      List<String> grantTo,
      boolean ssl,
      String truststorePath,
      String truststorePassword,
      boolean hostnameValidation,
      String keystorePath,
      String keystorePassword) {
    @Override
    public String toString() {
      return "CassandraSecurity[schemaUsername="
          + schemaUsername
          + ", schemaPassword="
          + mask(schemaPassword)
          + ", grantTo="
          + grantTo
          + ", ssl="
          + ssl
          + ", truststorePath="
          + truststorePath
          + ", hostnameValidation="
          + hostnameValidation
          + ", keystorePath="
          + keystorePath
          + "]";
    }
  }

  /** Kafka client security, passed to every producer, consumer and admin client. */
  public record KafkaSecurity(
      String protocol,
      String saslMechanism,
      String saslUsername,
      String saslPassword,
      String truststoreLocation,
      String truststoreType,
      String truststorePassword,
      String keystoreLocation,
      String keystoreType,
      String keystorePassword,
      String endpointIdentificationAlgorithm) {
    public boolean sasl() {
      return protocol.startsWith("SASL_");
    }

    public boolean ssl() {
      return protocol.endsWith("SSL");
    }

    @Override
    public String toString() {
      return "KafkaSecurity[protocol="
          + protocol
          + ", saslMechanism="
          + saslMechanism
          + ", saslUsername="
          + saslUsername
          + ", saslPassword="
          + mask(saslPassword)
          + ", truststoreLocation="
          + truststoreLocation
          + ", keystoreLocation="
          + keystoreLocation
          + "]";
    }
  }
}
