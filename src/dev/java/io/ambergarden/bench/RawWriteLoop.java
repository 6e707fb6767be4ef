package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.write.CqlStatements;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw ceiling: the same rows the service writes for each event, one async prepared INSERT per
 * row, with a fixed number in flight. No batching, no event bus, no Kafka: what the driver and node
 * can do.
 */
final class RawWriteLoop {
  private static final long HOUR = 3_600_000L;
  private static final int TTL = (int) Duration.ofDays(180).toSeconds();
  static final String PACKED_TABLE = "events_packed_floor";
  private final CqlSession session;
  private final PreparedStatement detail;
  private final PreparedStatement bucket;
  private final PreparedStatement latest;
  private final PreparedStatement byType;
  private final PreparedStatement abnormal;
  private final int typeSalts;
  private final int abnormalSalts;
  private final String keyspace;
  private PreparedStatement packed;
  private final AtomicLong eventsSubmitted = new AtomicLong();

  record Result(long events, long rows, double seconds) {
    double eventsPerSecond() {
      return events / seconds;
    }

    double rowsPerSecond() {
      return rows / seconds;
    }
  }

  RawWriteLoop(CqlSession session, String keyspace, int typeSalts, int abnormalSalts) {
    this.session = session;
    CqlStatements cql = new CqlStatements(keyspace);
    this.detail = session.prepare(cql.insertDetail());
    this.bucket = session.prepare(cql.insertBucket());
    this.latest = session.prepare(cql.upsertLatest());
    this.byType = session.prepare(cql.insertByType());
    this.abnormal = session.prepare(cql.upsertAbnormal());
    this.typeSalts = typeSalts;
    this.abnormalSalts = abnormalSalts;
    this.keyspace = keyspace;
  }

  /**
   * Rows the service writes for these events: detail, by-type, latest, abnormal, one bucket row per
   * partition.
   */
  static long rowsOf(List<BenchEvents.Spec> events) {
    Set<String> partitions = new HashSet<>();
    long rows = 0;
    for (BenchEvents.Spec e : events) {
      rows += 3 + (e.abnormal() ? 1 : 0);
      if (partitions.add(e.deviceId() + "/" + (e.ts() / HOUR))) {
        rows++;
      }
    }
    return rows;
  }

  /**
   * Events whose rows have all been submitted, over every run of this loop; the per-second sampler
   * reads it.
   */
  long eventsSubmitted() {
    return eventsSubmitted.get();
  }

  Result run(List<BenchEvents.Spec> events, int concurrency, Progress progress)
      throws InterruptedException {
    InFlightWrites writes = new InFlightWrites(session, concurrency);
    Set<String> partitions = new HashSet<>();
    long t0 = System.nanoTime();
    long done = 0;
    for (BenchEvents.Spec e : events) {
      writes.submit(detail(e));
      writes.submit(byType(e));
      writes.submit(latest(e));
      if (e.abnormal()) {
        writes.submit(abnormal(e));
      }
      if (partitions.add(e.deviceId() + "/" + bucketOf(e))) {
        writes.submit(bucket(e));
      }
      eventsSubmitted.incrementAndGet();
      if (++done % 10_000 == 0 && progress != null) {
        progress.report("raw", done, events.size(), t0);
      }
    }
    long rows = writes.awaitAll();
    return new Result(events.size(), rows, (System.nanoTime() - t0) / 1e9);
  }

  static long bucketOf(BenchEvents.Spec e) {
    return e.ts() / HOUR * HOUR;
  }

  BoundStatement detail(BenchEvents.Spec e) {
    return detail
        .bind(
            e.deviceId(),
            Instant.ofEpochMilli(bucketOf(e)),
            Instant.ofEpochMilli(e.ts()),
            e.eventId(),
            e.deviceType(),
            e.status(),
            e.code(),
            e.metrics(),
            null,
            null,
            TTL)
        .unset(8)
        .unset(9);
  }

  /**
   * The service's slim index row: keys only (bench devices are never sliced, detail_bucket unset).
   */
  BoundStatement byType(BenchEvents.Spec e) {
    return byType
        .bind(
            e.deviceType(),
            Instant.ofEpochMilli(bucketOf(e)),
            RowKeys.salt(e.deviceId(), typeSalts),
            Instant.ofEpochMilli(e.ts()),
            e.deviceId(),
            e.eventId(),
            null,
            TTL)
        .unset(6);
  }

  int typeSaltOf(BenchEvents.Spec e) {
    return RowKeys.salt(e.deviceId(), typeSalts);
  }

  BoundStatement latest(BenchEvents.Spec e) {
    return latest.bind(
        e.deviceId(),
        Instant.ofEpochMilli(e.ts()),
        e.eventId(),
        e.deviceType(),
        e.status(),
        e.code(),
        e.metrics(),
        Map.of(),
        null,
        RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId()),
        TTL);
  }

  BoundStatement abnormal(BenchEvents.Spec e) {
    return abnormal.bind(
        Instant.ofEpochMilli(bucketOf(e)),
        RowKeys.salt(e.deviceId(), abnormalSalts),
        e.code(),
        e.deviceId(),
        Instant.ofEpochMilli(e.ts()),
        e.status(),
        RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId()),
        TTL);
  }

  /**
   * The detail row as one cell ({@link #PACKED_TABLE}): the event's JSON under the same key, for
   * the storage floor's question of what the detail row's columns cost.
   */
  BoundStatement packed(BenchEvents.Spec e) {
    if (packed == null) {
      packed =
          session.prepare(
              "INSERT INTO "
                  + keyspace
                  + "."
                  + PACKED_TABLE
                  + " (device_id, bucket, ts, event_id, body) VALUES (?, ?, ?, ?, ?) USING TTL ?");
    }
    return packed.bind(
        e.deviceId(),
        Instant.ofEpochMilli(bucketOf(e)),
        Instant.ofEpochMilli(e.ts()),
        e.eventId(),
        java.nio.ByteBuffer.wrap(e.json()),
        TTL);
  }

  /** Creates {@link #PACKED_TABLE} as events_by_device is, with one blob for its columns. */
  static String createPackedTable(String keyspace) {
    return "CREATE TABLE IF NOT EXISTS "
        + keyspace
        + "."
        + PACKED_TABLE
        + " (device_id text, bucket timestamp, ts timestamp, event_id text, body blob,"
        + " PRIMARY KEY ((device_id, bucket), ts, event_id))"
        + " WITH CLUSTERING ORDER BY (ts DESC, event_id ASC) AND compaction = {'class':"
        + " 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS',"
        + " 'compaction_window_size': 1}";
  }

  BoundStatement bucket(BenchEvents.Spec e) {
    return bucket.bind(e.deviceId(), Instant.ofEpochMilli(bucketOf(e)), TTL);
  }

  interface Progress {
    void report(String phase, long done, long total, long startNanos);
  }
}
