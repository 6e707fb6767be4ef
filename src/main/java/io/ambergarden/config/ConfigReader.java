package io.ambergarden.config;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Reads and validates every section of {@link AmberConfig}; a bad value names its key. */
final class ConfigReader {
  private ConfigReader() {}

  private static final Pattern KEYSPACE = Pattern.compile("[a-z][a-z0-9_]{0,47}");
  private static final Pattern DC_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");
  private static final Set<String> CONSISTENCY =
      Set.of("ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE");
  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final Duration TEN_YEARS = Duration.ofDays(3650);

  static AmberConfig read(RawConfig c) {
    AmberConfig.Http http =
        new AmberConfig.Http(
            c.nonBlank("http.host"),
            c.intIn("http.port", 0, 65535),
            c.longIn("http.max-body-bytes", 1024, 256L * 1024 * 1024),
            c.intIn("http.instances", 1, 64),
            c.intIn("http.max-connections", 1, 1_000_000),
            c.duration("http.idle-timeout", Duration.ofSeconds(1), Duration.ofHours(1)),
            c.duration("http.body-timeout", Duration.ofSeconds(1), Duration.ofHours(1)));
    AmberConfig.Ingest ingest =
        new AmberConfig.Ingest(
            c.oneOf("ingest.mode", AmberConfig.IngestMode.class),
            c.intIn("ingest.max-batch", 1, 100_000),
            c.intIn("ingest.max-in-flight-requests", 1, 1_000_000),
            c.intIn("ingest.retry-after-seconds", 1, 3600),
            c.longIn("ingest.max-in-flight-bytes", 1024, 64L << 30),
            c.duration("ingest.produce-timeout", Duration.ofSeconds(1), Duration.ofMinutes(10)),
            c.bool("ingest.start-without-cassandra"));
    if (ingest.startWithoutCassandra() && ingest.mode() != AmberConfig.IngestMode.KAFKA) {
      throw new ConfigException(
          "ingest.start-without-cassandra", "needs ingest.mode=kafka (direct mode writes to it)");
    }
    if (ingest.maxInFlightBytes() < http.maxBodyBytes()) {
      throw new ConfigException(
          "ingest.max-in-flight-bytes", "must be at least http.max-body-bytes, or no body fits");
    }
    AmberConfig.Events events =
        new AmberConfig.Events(
            c.duration("event.retention", Duration.ofHours(1), TEN_YEARS),
            c.duration("event.future-skew", Duration.ZERO, Duration.ofDays(1)),
            c.intIn("event.max-payload-bytes", 0, 1024 * 1024),
            c.intIn("event.abnormal.min-code", 0, 1_000_000),
            c.list("event.abnormal.statuses").stream()
                .map(s -> s.toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet()));
    AmberConfig.Cassandra cassandra =
        new AmberConfig.Cassandra(
            contactPoints(c, "cassandra.contact-points"),
            c.nonBlank("cassandra.local-datacenter"),
            c.matching("cassandra.keyspace", KEYSPACE, "a lower-case CQL identifier"),
            replication(c, "cassandra.replication"),
            c.string("cassandra.username"),
            c.string("cassandra.password"),
            c.bool("cassandra.schema.apply"),
            c.duration("cassandra.request-timeout", Duration.ofMillis(100), Duration.ofMinutes(5)),
            consistency(c, "cassandra.consistency.write"),
            consistency(c, "cassandra.consistency.read"),
            consistency(c, "cassandra.consistency.counter"),
            c.duration("cassandra.speculative.delay", Duration.ZERO, Duration.ofMinutes(1)),
            c.intIn("cassandra.speculative.max", 1, 10),
            c.oneOf("cassandra.bucket", AmberConfig.BucketSize.class),
            c.intIn("cassandra.type-salts", 1, 256),
            c.intIn("cassandra.abnormal-salts", 1, 256),
            c.duration("cassandra.abnormal-retention", Duration.ofHours(1), Duration.ofDays(365)),
            c.bool("cassandra.separate-read-session"),
            SecurityConfigReader.cassandra(c));
    if (!cassandra.username().isEmpty() && cassandra.password().isEmpty()) {
      throw new ConfigException("cassandra.password", "must be set when cassandra.username is set");
    }
    AmberConfig.Writer writer =
        new AmberConfig.Writer(
            c.intIn("writer.instances", 1, 64),
            c.intIn("writer.max-in-flight-events", 1, 1_000_000),
            c.intIn("writer.max-concurrent-statements", 1, 100_000),
            c.oneOf("writer.concurrency-limit", AmberConfig.WriteLimit.class),
            c.intIn("writer.min-concurrent-statements", 1, 100_000),
            c.intIn("writer.batch-max-rows", 1, 1000),
            c.intIn("writer.retry.max-attempts", 1, 100),
            c.duration("writer.retry.initial-backoff", ONE_MS, Duration.ofMinutes(1)),
            c.duration("writer.retry.unsent-window", Duration.ZERO, Duration.ofMinutes(10)),
            c.intIn("writer.bucket-cache-size", 0, 100_000_000),
            c.duration("writer.request-timeout", Duration.ofMillis(100), Duration.ofMinutes(10)),
            c.intIn("writer.group-max-partitions", 1, 1000),
            c.intIn("writer.group-max-bytes", 64, 1 << 20));
    if (writer.retryUnsentWindow().compareTo(writer.requestTimeout()) >= 0) {
      throw new ConfigException(
          "writer.retry.unsent-window",
          "must be under writer.request-timeout, or a retried write outlives its request");
    }
    AmberConfig.Kafka kafka =
        new AmberConfig.Kafka(
            c.nonBlank("kafka.bootstrap-servers"),
            c.matching("kafka.topic", TOPIC, "a Kafka topic name"),
            c.matching("kafka.dlq-topic", TOPIC, "a Kafka topic name"),
            c.nonBlank("kafka.group-id"),
            c.bool("kafka.create-topics"),
            c.intIn("kafka.topic-partitions", 1, 10_000),
            (short) c.intIn("kafka.topic-replication", 1, 32),
            c.bool("kafka.consumer.enabled"),
            c.intIn("kafka.consumer.max-in-flight", 1, 1_000_000),
            c.intIn("kafka.consumer.max-poll-records", 1, 100_000),
            c.intIn("kafka.consumer.write-batch", 1, 10_000),
            c.duration("kafka.consumer.write-linger", ONE_MS, Duration.ofSeconds(1)),
            c.duration(
                "kafka.consumer.commit-interval", Duration.ofMillis(10), Duration.ofMinutes(10)),
            c.duration(
                "kafka.consumer.max-poll-interval", Duration.ofSeconds(1), Duration.ofHours(1)),
            // the brokers' default group.min/max.session.timeout.ms
            c.duration(
                "kafka.consumer.session-timeout", Duration.ofSeconds(6), Duration.ofMinutes(30)),
            c.intIn("kafka.breaker.failure-threshold", 1, 1000),
            c.duration("kafka.breaker.reset-timeout", ONE_MS, Duration.ofMinutes(10)),
            c.duration("kafka.retry.max-backoff", ONE_MS, Duration.ofMinutes(10)),
            c.intIn("kafka.dlq-guard.window", 1, 1_000_000),
            c.intIn("kafka.dlq-guard.min-samples", 1, 1_000_000),
            c.doubleIn("kafka.dlq-guard.max-ratio", 0.0, 1.0),
            c.duration("kafka.producer.linger", Duration.ZERO, Duration.ofSeconds(10)),
            c.duration(
                "kafka.producer.delivery-timeout", Duration.ofSeconds(1), Duration.ofMinutes(10)),
            c.duration("kafka.consumer.stall-timeout", Duration.ofSeconds(1), Duration.ofHours(1)),
            c.intIn("kafka.consumer.fetch-min-bytes", 1, 64 << 20),
            c.duration("kafka.consumer.fetch-max-wait", Duration.ZERO, Duration.ofSeconds(30)),
            c.duration("kafka.consumer.retry-timeout", Duration.ZERO, Duration.ofHours(24)),
            SecurityConfigReader.kafka(c));
    if (kafka.dlqGuardMinSamples() > kafka.dlqGuardWindow()) {
      throw new ConfigException(
          "kafka.dlq-guard.min-samples", "must not exceed kafka.dlq-guard.window");
    }
    if (kafka.topic().equals(kafka.dlqTopic())) {
      throw new ConfigException("kafka.dlq-topic", "must differ from kafka.topic");
    }
    if (kafka.writeBatch() > kafka.maxInFlight()) {
      throw new ConfigException(
          "kafka.consumer.write-batch", "must not exceed kafka.consumer.max-in-flight");
    }
    if (kafka.maxInFlight() > writer.maxInFlightEvents()) {
      throw new ConfigException(
          "kafka.consumer.max-in-flight", "must not exceed writer.max-in-flight-events");
    }
    AmberConfig.Query query =
        new AmberConfig.Query(
            c.intIn("query.instances", 1, 64),
            c.intIn("query.default-limit", 1, 100_000),
            c.intIn("query.max-limit", 1, 100_000),
            c.intIn("query.max-buckets-per-page", 1, 10_000),
            c.string("query.cursor-key"),
            c.intIn("query.stats-max-days", 1, 3660),
            c.intIn("query.series-max-points", 1, 1_000_000),
            c.intIn("query.series-max-scanned", 1, 100_000_000));
    if (!query.cursorKey().isEmpty() && query.cursorKey().length() < 16) {
      throw new ConfigException(
          "query.cursor-key",
          "must be at least 16 characters (or empty for a random per-process key)");
    }
    if (query.defaultLimit() > query.maxLimit()) {
      throw new ConfigException("query.default-limit", "must not exceed query.max-limit");
    }
    AmberConfig.Export export =
        new AmberConfig.Export(
            c.intIn("export.max-concurrent", 1, 10_000),
            c.intIn("export.page-size", 1, 100_000),
            c.duration("export.stall-timeout", Duration.ofSeconds(1), Duration.ofHours(1)),
            c.intIn("export.write-queue-bytes", 1024, 64 * 1024 * 1024),
            c.intIn("export.max-metrics", 1, 1000));
    AmberConfig.Counters counters =
        new AmberConfig.Counters(
            c.bool("counters.enabled"),
            c.bool("counters.reconcile"),
            c.intIn("counters.max-pending-cells", 1, 10_000_000),
            c.intIn("counters.max-concurrent-flushes", 1, 1024));
    AmberConfig.Rollups rollups =
        new AmberConfig.Rollups(
            c.bool("rollup.enabled"),
            c.duration("rollup.grace", Duration.ZERO, Duration.ofHours(24)),
            c.duration("rollup.scan-interval", Duration.ofMillis(100), Duration.ofMinutes(10)),
            c.intIn("rollup.shards", 1, 1024),
            c.duration("rollup.lease-ttl", Duration.ofSeconds(1), Duration.ofHours(1)),
            c.duration("rollup.mark-bucket", Duration.ofSeconds(1), Duration.ofHours(1)),
            c.duration("rollup.mark-safety", Duration.ZERO, Duration.ofHours(1)),
            c.intIn("rollup.max-concurrent-recomputes", 1, 1024),
            c.duration("rollup.late-window", Duration.ZERO, Duration.ofHours(1)));
    if (counters.enabled() && !rollups.enabled()) {
      // the rollup shard owners apply the count journal and reconcile closed hours
      throw new ConfigException("counters.enabled", "needs rollup.enabled=true");
    }
    if (rollups.leaseTtl().compareTo(rollups.scanInterval().multipliedBy(2)) < 0) {
      throw new ConfigException("rollup.lease-ttl", "must be at least twice rollup.scan-interval");
    }
    // a mark is filed under the time its attempt is sent, and an attempt lasts at most the driver's
    // request timeout: a bucket read mark-safety after its end can no longer receive a mark
    if (rollups.markSafety().compareTo(cassandra.requestTimeout()) < 0) {
      throw new ConfigException(
          "rollup.mark-safety",
          "must be at least cassandra.request-timeout (plus the clock skew between instances), or"
              + " a slow mark write can be missed");
    }
    AmberConfig.Live live =
        new AmberConfig.Live(
            c.bool("live.enabled"),
            c.matching("live.topic", TOPIC, "a Kafka topic name"),
            c.intIn("live.max-connections", 0, 1_000_000),
            c.intIn("live.max-buffered-bytes", 1024, 64 << 20),
            c.duration("live.heartbeat-interval", Duration.ofMillis(100), Duration.ofMinutes(10)),
            c.intIn("live.max-replay-events", 1, 1_000_000),
            c.intIn("live.max-filter-values", 1, 10_000),
            c.list("live.allowed-origins"),
            c.longIn("live.replay-max-bytes", 1024, 64L << 30),
            c.duration("live.presence-interval", Duration.ofMillis(100), Duration.ofMinutes(1)),
            c.bool("live.relay-when-alone"));
    if (http.idleTimeout().compareTo(live.heartbeatInterval()) <= 0) {
      throw new ConfigException(
          "http.idle-timeout",
          "must be longer than live.heartbeat-interval, or idle live clients are cut off");
    }
    if (live.topic().equals(kafka.topic()) || live.topic().equals(kafka.dlqTopic())) {
      throw new ConfigException("live.topic", "must differ from kafka.topic and kafka.dlq-topic");
    }
    AmberConfig.Simulator simulator =
        new AmberConfig.Simulator(
            c.bool("simulator.enabled"),
            c.intIn("simulator.devices", 1, 1_000_000),
            c.intIn("simulator.events-per-second", 1, 1_000_000));
    AmberConfig.Fleet fleet =
        new AmberConfig.Fleet(
            c.intIn("fleet.shards", 1, 1024),
            c.intIn("fleet.cache-size", 0, 100_000_000),
            c.duration("fleet.refresh", Duration.ofMinutes(1), TEN_YEARS));
    if (fleet.refresh().compareTo(events.retention().dividedBy(2)) > 0) {
      throw new ConfigException(
          "fleet.refresh", "must be at most half of event.retention, or index rows expire first");
    }
    AmberConfig.HotDevices hot =
        new AmberConfig.HotDevices(
            c.bool("hot.enabled"),
            c.intIn("hot.partition-rows", 100, 10_000_000),
            c.intIn("hot.max-salts", 2, 256));
    AmberConfig.Media media = MediaConfigReader.read(c);
    c.matching("log.format", Pattern.compile("text|json"), "text or json");
    Duration grace =
        c.duration("shutdown.grace-period", Duration.ofSeconds(1), Duration.ofMinutes(30));
    SecurityConfig.Access access = SecurityConfigReader.access(c, http.port());
    int replicas = SecurityConfigReader.replicas(c, query.cursorKey());
    AmberConfig.Clock clock =
        new AmberConfig.Clock(
            // at most 2 min: the cluster clock falls back to the wall clock after 5 min unsynced
            c.duration("clock.check-interval", Duration.ZERO, Duration.ofMinutes(2)),
            c.duration("clock.max-skew", ONE_MS, Duration.ofHours(1)));
    if (clock.enabled() && clock.checkInterval().compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException("clock.check-interval", "must be 0s (off) or at least 1s");
    }
    return new AmberConfig(
        http, ingest, events, cassandra, writer, kafka, query, export, counters, rollups, live,
        simulator, fleet, hot, media, grace, c, access, replicas, clock);
  }

  private static List<InetSocketAddress> contactPoints(RawConfig c, String key) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String hp : c.list(key)) {
      int colon = hp.lastIndexOf(':');
      if (colon <= 0 || colon == hp.length() - 1) {
        throw new ConfigException(key, "each contact point must be host:port, got '" + hp + "'");
      }
      int port;
      try {
        port = Integer.parseInt(hp.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new ConfigException(key, "bad port in '" + hp + "'");
      }
      if (port < 1 || port > 65535) {
        throw new ConfigException(key, "bad port in '" + hp + "'");
      }
      out.add(InetSocketAddress.createUnresolved(hp.substring(0, colon), port));
    }
    if (out.isEmpty()) {
      throw new ConfigException(key, "must name at least one host:port");
    }
    return List.copyOf(out);
  }

  /** Turns SimpleStrategy:1 or NetworkTopologyStrategy:dc1=3,dc2=3 into a CQL replication map. */
  static String replication(RawConfig c, String key) {
    String v = c.nonBlank(key);
    int colon = v.indexOf(':');
    if (colon < 0) {
      throw new ConfigException(
          key,
          "must be SimpleStrategy:<rf> or NetworkTopologyStrategy:<dc>=<rf>,..., got '" + v + "'");
    }
    String strategy = v.substring(0, colon).trim();
    String rest = v.substring(colon + 1).trim();
    if (strategy.equals("SimpleStrategy")) {
      return "{'class': 'SimpleStrategy', 'replication_factor': " + rf(key, rest) + "}";
    }
    if (!strategy.equals("NetworkTopologyStrategy")) {
      throw new ConfigException(
          key,
          "strategy must be SimpleStrategy or NetworkTopologyStrategy, got '" + strategy + "'");
    }
    Map<String, Integer> dcs = new LinkedHashMap<>();
    for (String part : rest.split(",")) {
      String[] kv = part.trim().split("=");
      if (kv.length != 2 || !DC_NAME.matcher(kv[0].trim()).matches()) {
        throw new ConfigException(
            key, "each datacenter must be <dc>=<rf>, got '" + part.trim() + "'");
      }
      dcs.put(kv[0].trim(), rf(key, kv[1].trim()));
    }
    return dcs.entrySet().stream()
        .map(e -> "'" + e.getKey() + "': " + e.getValue())
        .collect(Collectors.joining(", ", "{'class': 'NetworkTopologyStrategy', ", "}"));
  }

  private static int rf(String key, String s) {
    try {
      int rf = Integer.parseInt(s);
      if (rf >= 1 && rf <= 32) {
        return rf;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new ConfigException(
        key, "replication factor must be an integer in 1..32, got '" + s + "'");
  }

  private static String consistency(RawConfig c, String key) {
    String v = c.nonBlank(key).toUpperCase(Locale.ROOT);
    if (!CONSISTENCY.contains(v)) {
      throw new ConfigException(
          key, "must be one of " + new java.util.TreeSet<>(CONSISTENCY) + ", got '" + v + "'");
    }
    return v;
  }
}
