package io.ambergarden.config;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads and validates the {@link SecurityConfig} sections; a bad value names its key. */
final class SecurityConfigReader {
  private SecurityConfigReader() {}

  private static final Pattern ORIGIN = Pattern.compile("https?://[A-Za-z0-9.-]+(:\\d{1,5})?");
  private static final Pattern ROLE = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,47}");
  private static final Set<String> KAFKA_PROTOCOLS =
      Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
  private static final Set<String> SASL_MECHANISMS =
      Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
  private static final Set<String> STORE_TYPES = Set.of("PKCS12", "JKS", "PEM");

  static SecurityConfig.Access access(RawConfig c, int httpPort) {
    SecurityConfig.Jwt jwt =
        new SecurityConfig.Jwt(
            existingFile(c, "auth.jwt.public-key-file"),
            jwksUrl(c),
            c.duration("auth.jwt.jwks-refresh", Duration.ofSeconds(10), Duration.ofDays(1)),
            c.string("auth.jwt.issuer"),
            c.string("auth.jwt.audience"),
            c.duration("auth.jwt.leeway", Duration.ZERO, Duration.ofMinutes(5)),
            c.list("auth.jwt.fleet-wide-scopes"));
    if (jwt.enabled() && jwt.issuer().isEmpty()) {
      throw new ConfigException("auth.jwt.issuer", "must be set when JWTs are accepted");
    }
    if (jwt.enabled() && jwt.audience().isEmpty()) {
      throw new ConfigException("auth.jwt.audience", "must be set when JWTs are accepted");
    }
    if (!jwt.publicKeyFile().isEmpty() && !jwt.jwksUrl().isEmpty()) {
      throw new ConfigException(
          "auth.jwt.jwks-url", "set either auth.jwt.public-key-file or auth.jwt.jwks-url");
    }
    SecurityConfig.HttpTls tls =
        new SecurityConfig.HttpTls(
            existingFile(c, "http.tls.cert-file"),
            existingFile(c, "http.tls.key-file"),
            c.duration("http.tls.reload-interval", Duration.ofSeconds(1), Duration.ofHours(1)));
    if (tls.certFile().isEmpty() != tls.keyFile().isEmpty()) {
      throw new ConfigException(
          tls.certFile().isEmpty() ? "http.tls.cert-file" : "http.tls.key-file",
          "http.tls.cert-file and http.tls.key-file go together");
    }
    Duration refresh =
        c.duration("auth.key-cache.refresh", Duration.ofMillis(100), Duration.ofSeconds(4));
    Duration maxStale = c.duration("auth.key-cache.max-stale", Duration.ZERO, Duration.ofHours(1));
    if (!maxStale.isZero() && maxStale.compareTo(refresh) < 0) {
      throw new ConfigException(
          "auth.key-cache.max-stale", "must be 0 or at least auth.key-cache.refresh");
    }
    List<String> origins = c.list("http.cors.allowed-origins");
    for (String o : origins) {
      if (!ORIGIN.matcher(o).matches()) {
        throw new ConfigException(
            "http.cors.allowed-origins",
            "each entry must be an origin such as https://ops.example.com (no paths, no *), got '"
                + o
                + "'");
      }
    }
    int management = SecurityConfig.Access.NO_MANAGEMENT_PORT;
    if (!c.string("http.management-port").isEmpty()) {
      management = c.intIn("http.management-port", 0, 65535);
      if (management != 0 && management == httpPort) {
        throw new ConfigException("http.management-port", "must differ from http.port");
      }
    }
    return new SecurityConfig.Access(
        c.bool("auth.enabled"),
        c.intIn("auth.key-cache.size", 1, 10_000_000),
        refresh,
        maxStale,
        c.intIn("auth.default-rate-per-second", 1, 1_000_000),
        c.intIn("auth.rate.max-tracked", 1, 10_000_000),
        c.duration("auth.ticket-ttl", Duration.ofSeconds(1), Duration.ofSeconds(60)),
        jwt,
        origins,
        tls,
        management,
        keyLookup(c));
  }

  private static SecurityConfig.KeyLookup keyLookup(RawConfig c) {
    List<AddressRange> proxies = new java.util.ArrayList<>();
    for (String p : c.list("http.trusted-proxies")) {
      try {
        proxies.add(AddressRange.parse(p));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "http.trusted-proxies",
            "each entry must be an IP address or a CIDR range such as 10.0.0.0/8, got '" + p + "'");
      }
    }
    return new SecurityConfig.KeyLookup(
        c.intIn("auth.key-cache.negative-size", 1, 10_000_000),
        c.duration("auth.key-cache.negative-ttl", Duration.ofSeconds(1), Duration.ofHours(1)),
        c.intIn("auth.address.failures-per-minute", 1, 1_000_000),
        c.intIn("auth.address.max-tracked", 1, 10_000_000),
        List.copyOf(proxies),
        existingFile(c, "auth.static-keys-file"));
  }

  static SecurityConfig.CassandraSecurity cassandra(RawConfig c) {
    SecurityConfig.CassandraSecurity s =
        new SecurityConfig.CassandraSecurity(
            c.string("cassandra.schema.username"),
            c.string("cassandra.schema.password"),
            roles(c, "cassandra.schema.grant-to"),
            c.bool("cassandra.ssl.enabled"),
            existingFile(c, "cassandra.ssl.truststore-path"),
            c.string("cassandra.ssl.truststore-password"),
            c.bool("cassandra.ssl.hostname-validation"),
            existingFile(c, "cassandra.ssl.keystore-path"),
            c.string("cassandra.ssl.keystore-password"));
    if (!s.schemaUsername().isEmpty() && s.schemaPassword().isEmpty()) {
      throw new ConfigException(
          "cassandra.schema.password", "must be set when cassandra.schema.username is set");
    }
    if (!s.truststorePath().isEmpty() && s.truststorePassword().isEmpty()) {
      throw new ConfigException(
          "cassandra.ssl.truststore-password", "must be set with cassandra.ssl.truststore-path");
    }
    if (!s.keystorePath().isEmpty() && s.keystorePassword().isEmpty()) {
      throw new ConfigException(
          "cassandra.ssl.keystore-password", "must be set with cassandra.ssl.keystore-path");
    }
    return s;
  }

  static SecurityConfig.KafkaSecurity kafka(RawConfig c) {
    SecurityConfig.KafkaSecurity s =
        new SecurityConfig.KafkaSecurity(
            oneOf(c, "kafka.security.protocol", KAFKA_PROTOCOLS),
            oneOf(c, "kafka.sasl.mechanism", SASL_MECHANISMS),
            c.string("kafka.sasl.username"),
            c.string("kafka.sasl.password"),
            existingFile(c, "kafka.ssl.truststore-location"),
            oneOf(c, "kafka.ssl.truststore-type", STORE_TYPES),
            c.string("kafka.ssl.truststore-password"),
            existingFile(c, "kafka.ssl.keystore-location"),
            oneOf(c, "kafka.ssl.keystore-type", STORE_TYPES),
            c.string("kafka.ssl.keystore-password"),
            c.matching(
                "kafka.ssl.endpoint-identification-algorithm",
                Pattern.compile("https|"),
                "https, or empty to turn host name verification off"));
    if (s.sasl() && (s.saslUsername().isEmpty() || s.saslPassword().isEmpty())) {
      throw new ConfigException(
          s.saslUsername().isEmpty() ? "kafka.sasl.username" : "kafka.sasl.password",
          "must be set when kafka.security.protocol is " + s.protocol());
    }
    return s;
  }

  static int replicas(RawConfig c, String cursorKey) {
    int replicas = c.intIn("service.replicas", 1, 10_000);
    if (replicas > 1 && cursorKey.isEmpty()) {
      throw new ConfigException(
          "query.cursor-key",
          "must be set when service.replicas is "
              + replicas
              + ": every instance must verify the cursors the others issue");
    }
    return replicas;
  }

  /** Role names go into GRANT statements, so only plain identifiers are accepted. */
  private static List<String> roles(RawConfig c, String key) {
    List<String> roles = c.list(key);
    for (String r : roles) {
      if (!ROLE.matcher(r).matches()) {
        throw new ConfigException(key, "role names must match " + ROLE + ", got '" + r + "'");
      }
    }
    return roles;
  }

  private static String oneOf(RawConfig c, String key, Set<String> allowed) {
    String v = c.nonBlank(key).toUpperCase(java.util.Locale.ROOT);
    if (!allowed.contains(v)) {
      throw new ConfigException(
          key, "must be one of " + new java.util.TreeSet<>(allowed) + ", got '" + v + "'");
    }
    return v;
  }

  /** An empty value, or the path of a readable file; a missing file stops startup here. */
  private static String existingFile(RawConfig c, String key) {
    String v = c.string(key);
    if (!v.isEmpty() && !Files.isReadable(Path.of(v))) {
      throw new ConfigException(key, "no readable file at " + v);
    }
    return v;
  }

  private static String jwksUrl(RawConfig c) {
    String v = c.string("auth.jwt.jwks-url");
    if (v.isEmpty()) {
      return v;
    }
    try {
      URI u = URI.create(v);
      boolean loopback =
          "http".equals(u.getScheme())
              && ("127.0.0.1".equals(u.getHost()) || "localhost".equals(u.getHost()));
      if (("https".equals(u.getScheme()) || loopback) && u.getHost() != null) {
        return v;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new ConfigException(
        "auth.jwt.jwks-url", "must be an https:// URL (http only on loopback), got '" + v + "'");
  }
}
