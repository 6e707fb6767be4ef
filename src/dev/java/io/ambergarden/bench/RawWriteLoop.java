package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
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
  private final CqlSession session;
  private final PreparedStatement detail;
  private final PreparedStatement bucket;
  private final PreparedStatement latest;
  private final PreparedStatement byType;
  private final PreparedStatement abnormal;
  private final int typeSalts;
  private final int abnormalSalts;
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
    int ttl = (int) Duration.ofDays(180).toSeconds();
    long t0 = System.nanoTime();
    long done = 0;
    for (BenchEvents.Spec e : events) {
      long bucketStart = e.ts() / HOUR * HOUR;
      Instant ts = Instant.ofEpochMilli(e.ts());
      Map<String, Double> metrics = e.metrics();
      long writeTs = RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId());
      writes.submit(
          detail
              .bind(
                  e.deviceId(),
                  Instant.ofEpochMilli(bucketStart),
                  ts,
                  e.eventId(),
                  e.deviceType(),
                  e.status(),
                  e.code(),
                  metrics,
                  null,
                  null,
                  ttl)
              .unset(8)
              .unset(9));
      writes.submit(
          byType
              .bind(
                  e.deviceType(),
                  Instant.ofEpochMilli(bucketStart),
                  RowKeys.salt(e.deviceId(), typeSalts),
                  ts,
                  e.deviceId(),
                  e.eventId(),
                  e.status(),
                  e.code(),
                  metrics,
                  null,
                  null,
                  ttl)
              .unset(9)
              .unset(10));
      writes.submit(
          latest.bind(
              e.deviceId(),
              ts,
              e.eventId(),
              e.deviceType(),
              e.status(),
              e.code(),
              metrics,
              Map.of(),
              null,
              writeTs,
              ttl));
      if (e.abnormal()) {
        writes.submit(
            abnormal.bind(
                Instant.ofEpochMilli(bucketStart),
                RowKeys.salt(e.deviceId(), abnormalSalts),
                e.code(),
                e.deviceId(),
                ts,
                e.status(),
                writeTs,
                ttl));
      }
      if (partitions.add(e.deviceId() + "/" + bucketStart)) {
        writes.submit(bucket.bind(e.deviceId(), Instant.ofEpochMilli(bucketStart), ttl));
      }
      eventsSubmitted.incrementAndGet();
      if (++done % 10_000 == 0 && progress != null) {
        progress.report("raw", done, events.size(), t0);
      }
    }
    long rows = writes.awaitAll();
    return new Result(events.size(), rows, (System.nanoTime() - t0) / 1e9);
  }

  interface Progress {
    void report(String phase, long done, long total, long startNanos);
  }
}
