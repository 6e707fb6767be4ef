package io.ambergarden.kafka;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.SecurityConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Kafka client settings derived from the typed config. */
public final class KafkaSettings {
  private KafkaSettings() {}

  public static Map<String, String> consumer(AmberConfig.Kafka cfg) {
    Map<String, String> m = new HashMap<>();
    m.put("bootstrap.servers", cfg.bootstrapServers());
    m.put("group.id", cfg.groupId());
    m.put("enable.auto.commit", "false");
    m.put("auto.offset.reset", "earliest");
    m.put("max.poll.records", Integer.toString(cfg.maxPollRecords()));
    m.put("fetch.min.bytes", Integer.toString(cfg.fetchMinBytes()));
    m.put("fetch.max.wait.ms", Long.toString(cfg.fetchMaxWait().toMillis()));
    m.put("max.poll.interval.ms", Long.toString(cfg.maxPollInterval().toMillis()));
    m.put("session.timeout.ms", Long.toString(cfg.sessionTimeout().toMillis()));
    // every blocking call on the consumer's thread (commit, close) delays the next poll by at most
    // this; the default (60 s) let a broker outage stack them past max.poll.interval.ms
    m.put("default.api.timeout.ms", Long.toString(consumerApiTimeout(cfg).toMillis()));
    // incremental rebalances: a joining or leaving instance moves only the partitions it must
    m.put(
        "partition.assignment.strategy",
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
    m.put("client.id", "amber-ingest");
    m.putAll(security(cfg.security()));
    return m;
  }

  /** Bound of each blocking consumer call: 5 s, or a quarter of max.poll.interval if smaller. */
  public static Duration consumerApiTimeout(AmberConfig.Kafka cfg) {
    Duration quarter = cfg.maxPollInterval().dividedBy(4);
    return quarter.compareTo(Duration.ofSeconds(5)) < 0 ? quarter : Duration.ofSeconds(5);
  }

  /** Durable producer: acks=all and idempotent, so a retry inside the client never duplicates. */
  public static Map<String, String> producer(AmberConfig.Kafka cfg, String clientId) {
    Map<String, String> m = new HashMap<>();
    m.put("bootstrap.servers", cfg.bootstrapServers());
    m.put("acks", "all");
    m.put("enable.idempotence", "true");
    m.put("max.in.flight.requests.per.connection", "5");
    m.put("compression.type", "lz4");
    m.put("linger.ms", Long.toString(cfg.producerLinger().toMillis()));
    long delivery = cfg.producerDeliveryTimeout().toMillis();
    m.put("delivery.timeout.ms", Long.toString(delivery));
    m.put("request.timeout.ms", Long.toString(Math.min(delivery, 10_000)));
    // send() must not block an event loop for long when the buffer is full or metadata is missing
    m.put("max.block.ms", "2000");
    m.put("client.id", clientId);
    m.putAll(security(cfg.security()));
    return m;
  }

  public static Map<String, String> admin(AmberConfig.Kafka cfg) {
    Map<String, String> m = new HashMap<>();
    m.put("bootstrap.servers", cfg.bootstrapServers());
    m.put("request.timeout.ms", "5000");
    m.put("default.api.timeout.ms", "10000");
    m.put("client.id", "amber-admin");
    m.putAll(security(cfg.security()));
    return m;
  }

  /**
   * The client security settings (kafka.security.*, kafka.sasl.*, kafka.ssl.*), the same for every
   * client. Plaintext adds nothing, so a plain broker sees exactly the old settings.
   */
  public static Map<String, String> security(SecurityConfig.KafkaSecurity s) {
    Map<String, String> m = new HashMap<>();
    if (s.protocol().equals("PLAINTEXT")) {
      return m;
    }
    m.put("security.protocol", s.protocol());
    if (s.sasl()) {
      m.put("sasl.mechanism", s.saslMechanism());
      String module =
          s.saslMechanism().equals("PLAIN")
              ? "org.apache.kafka.common.security.plain.PlainLoginModule"
              : "org.apache.kafka.common.security.scram.ScramLoginModule";
      m.put(
          "sasl.jaas.config",
          module
              + " required username=\""
              + jaasEscape(s.saslUsername())
              + "\" password=\""
              + jaasEscape(s.saslPassword())
              + "\";");
    }
    if (s.ssl()) {
      if (!s.truststoreLocation().isEmpty()) {
        m.put("ssl.truststore.location", s.truststoreLocation());
        m.put("ssl.truststore.type", s.truststoreType());
        if (!s.truststorePassword().isEmpty()) {
          m.put("ssl.truststore.password", s.truststorePassword());
        }
      }
      if (!s.keystoreLocation().isEmpty()) {
        m.put("ssl.keystore.location", s.keystoreLocation());
        m.put("ssl.keystore.type", s.keystoreType());
        if (!s.keystorePassword().isEmpty()) {
          m.put("ssl.keystore.password", s.keystorePassword());
        }
      }
      m.put("ssl.endpoint.identification.algorithm", s.endpointIdentificationAlgorithm());
      // TLS 1.2 and 1.3 only, as on the HTTP side
      m.put("ssl.enabled.protocols", "TLSv1.3,TLSv1.2");
    }
    return m;
  }

  /** JAAS values are quoted strings: a quote or backslash in a password must not end them. */
  static String jaasEscape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
