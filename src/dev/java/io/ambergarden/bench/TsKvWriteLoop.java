package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * (d) The same events in a ThingsBoard-style key-value time series: ts_kv_cf holds one row per
 * metric key per data point, in month partitions; ts_kv_partitions_cf indexes the partitions of
 * each (entity, key). Modelled on ThingsBoard's cassandra/schema-ts.cql (its ts_kv_latest_cf is
 * left out). Written like {@link RawWriteLoop}.
 */
final class TsKvWriteLoop {
  static final String ENTITY_TYPE = "DEVICE";
  static final List<String> KEYS = List.of("temperature", "vibration", "current", "status", "code");

  private final CqlSession session;
  private final PreparedStatement doubleValue;
  private final PreparedStatement stringValue;
  private final PreparedStatement longValue;
  private final PreparedStatement partition;
  private final AtomicLong eventsSubmitted = new AtomicLong();

  TsKvWriteLoop(CqlSession session, String keyspace) {
    this.session = session;
    String insert =
        "INSERT INTO " + keyspace + ".ts_kv_cf (entity_type, entity_id, key, partition, ts, ";
    this.doubleValue = session.prepare(insert + "dbl_v) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?");
    this.stringValue = session.prepare(insert + "str_v) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?");
    this.longValue = session.prepare(insert + "long_v) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?");
    this.partition =
        session.prepare(
            "INSERT INTO "
                + keyspace
                + ".ts_kv_partitions_cf (entity_type, entity_id, key, partition) VALUES (?, ?, ?, ?) USING TTL ?");
  }

  static void createTables(CqlSession session, String keyspace) {
    session.execute(
        "CREATE TABLE IF NOT EXISTS "
            + keyspace
            + ".ts_kv_cf (entity_type text, entity_id timeuuid,"
            + " key text, partition bigint, ts bigint, bool_v boolean, str_v text, long_v bigint, dbl_v double,"
            + " json_v text, PRIMARY KEY ((entity_type, entity_id, key, partition), ts))");
    session.execute(
        "CREATE TABLE IF NOT EXISTS "
            + keyspace
            + ".ts_kv_partitions_cf (entity_type text,"
            + " entity_id timeuuid, key text, partition bigint, PRIMARY KEY ((entity_type, entity_id, key), partition))"
            + " WITH CLUSTERING ORDER BY (partition ASC) AND compaction = {'class': 'LeveledCompactionStrategy'}");
  }

  /**
   * ThingsBoard's default MONTHS partitioning: the start of the event's UTC month, epoch millis.
   */
  static long monthPartition(long tsMillis) {
    ZonedDateTime t = Instant.ofEpochMilli(tsMillis).atZone(ZoneOffset.UTC);
    return t.withDayOfMonth(1)
        .toLocalDate()
        .atStartOfDay(ZoneOffset.UTC)
        .toInstant()
        .toEpochMilli();
  }

  /**
   * A stable version-1 UUID per device id: ThingsBoard's entity_id is a timeuuid, our ids are
   * strings.
   */
  static UUID entityId(String deviceId) {
    UUID named = UUID.nameUUIDFromBytes(deviceId.getBytes(StandardCharsets.UTF_8));
    long versionOne = (named.getMostSignificantBits() & ~0xF000L) | 0x1000L;
    return new UUID(versionOne, named.getLeastSignificantBits());
  }

  /**
   * Rows written for these events: one per key per event, plus one per (entity, key, partition)
   * first seen.
   */
  static long rowsOf(List<BenchEvents.Spec> events) {
    Set<String> partitions = new HashSet<>();
    for (BenchEvents.Spec e : events) {
      partitions.add(e.deviceId() + "/" + monthPartition(e.ts()));
    }
    return (long) KEYS.size() * (events.size() + partitions.size());
  }

  long eventsSubmitted() {
    return eventsSubmitted.get();
  }

  RawWriteLoop.Result run(
      List<BenchEvents.Spec> events, int concurrency, RawWriteLoop.Progress progress)
      throws InterruptedException {
    InFlightWrites writes = new InFlightWrites(session, concurrency);
    // ThingsBoard keeps a cache of partitions it has written, so each index row is written once
    Set<String> knownPartitions = new HashSet<>();
    int ttl = (int) Duration.ofDays(180).toSeconds();
    long t0 = System.nanoTime();
    long done = 0;
    for (BenchEvents.Spec e : events) {
      UUID entity = entityId(e.deviceId());
      long part = monthPartition(e.ts());
      writes.submit(
          doubleValue.bind(ENTITY_TYPE, entity, "temperature", part, e.ts(), e.temperature(), ttl));
      writes.submit(
          doubleValue.bind(ENTITY_TYPE, entity, "vibration", part, e.ts(), e.vibration(), ttl));
      writes.submit(
          doubleValue.bind(ENTITY_TYPE, entity, "current", part, e.ts(), e.current(), ttl));
      writes.submit(stringValue.bind(ENTITY_TYPE, entity, "status", part, e.ts(), e.status(), ttl));
      writes.submit(
          longValue.bind(ENTITY_TYPE, entity, "code", part, e.ts(), (long) e.code(), ttl));
      if (knownPartitions.add(e.deviceId() + "/" + part)) {
        for (String key : KEYS) {
          writes.submit(partition.bind(ENTITY_TYPE, entity, key, part, ttl));
        }
      }
      eventsSubmitted.incrementAndGet();
      if (++done % 10_000 == 0 && progress != null) {
        progress.report("tb-kv", done, events.size(), t0);
      }
    }
    long rows = writes.awaitAll();
    return new RawWriteLoop.Result(events.size(), rows, (System.nanoTime() - t0) / 1e9);
  }
}
