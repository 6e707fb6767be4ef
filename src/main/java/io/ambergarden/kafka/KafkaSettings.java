package io.ambergarden.kafka;

import io.ambergarden.config.AmberConfig;
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
    m.put("client.id", "amber-ingest");
    return m;
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
    return m;
  }

  public static Map<String, String> admin(AmberConfig.Kafka cfg) {
    return Map.of(
        "bootstrap.servers",
        cfg.bootstrapServers(),
        "request.timeout.ms",
        "5000",
        "default.api.timeout.ms",
        "10000",
        "client.id",
        "amber-admin");
  }
}
