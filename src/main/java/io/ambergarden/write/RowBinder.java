package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.rollup.RollupMarks;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * Binds the writer's statements for one row each. Optional columns are left unset (not null) where
 * an absent field must write no tombstone; every TTL ends the row with its event's retention.
 */
final class RowBinder {
  private final WriterStatements cql;
  private final AmberConfig config;
  private final TimeBuckets buckets;

  RowBinder(WriterStatements cql, AmberConfig config, TimeBuckets buckets) {
    this.cql = cql;
    this.config = config;
    this.buckets = buckets;
  }

  BoundStatement detail(Event e, long bucketStart, long now) {
    BoundStatementBuilder b =
        cql.detail()
            .boundStatementBuilder()
            .setString(0, e.deviceId())
            .setInstant(1, Instant.ofEpochMilli(bucketStart))
            .setInstant(2, Instant.ofEpochMilli(e.ts()))
            .setString(3, e.eventId());
    // unset (not null) optional columns, so absent fields write no tombstones
    if (e.deviceType() != null) {
      b.setString(4, e.deviceType());
    }
    bindOptional(b, e, 5);
    return b.setInt(10, RowKeys.ttlSeconds(e.ts(), now, config.events().retention())).build();
  }

  /**
   * A slim index row: keys only; detail_bucket is unset (no cell) for the bucket's own partition.
   */
  BoundStatement byType(WritePlan.TypeRow row, WritePlan.TypeKey key, long now) {
    Event e = row.event();
    BoundStatementBuilder b =
        cql.byType()
            .boundStatementBuilder()
            .setString(0, key.deviceType())
            .setInstant(1, Instant.ofEpochMilli(key.bucket()))
            .setInt(2, key.salt())
            .setInstant(3, Instant.ofEpochMilli(e.ts()))
            .setString(4, e.deviceId())
            .setString(5, e.eventId());
    if (row.detailBucket() != key.bucket()) {
      b.setInstant(6, Instant.ofEpochMilli(row.detailBucket()));
    }
    return b.setInt(7, RowKeys.ttlSeconds(e.ts(), now, config.events().retention())).build();
  }

  /** Binds status, code, metrics, tags, payload from index {@code i}, leaving absent ones unset. */
  private static void bindOptional(BoundStatementBuilder b, Event e, int i) {
    if (e.status() != null) {
      b.setString(i, e.status());
    }
    if (e.code() != null) {
      b.setInt(i + 1, e.code());
    }
    if (!e.metrics().isEmpty()) {
      b.set(i + 2, e.metrics(), CqlTypes.METRICS);
    }
    if (!e.tags().isEmpty()) {
      b.set(i + 3, e.tags(), CqlTypes.TAGS);
    }
    if (e.payload() != null) {
      b.setString(i + 4, e.payload());
    }
  }

  BoundStatement latest(Event e, long now) {
    // nulls are bound on purpose: the latest state is the newest event as a whole, not a merge of
    // events
    return cql.latest()
        .boundStatementBuilder()
        .setString(0, e.deviceId())
        .setInstant(1, Instant.ofEpochMilli(e.ts()))
        .setString(2, e.eventId())
        .setString(3, e.deviceType())
        .setString(4, e.status())
        .set(5, e.code(), Integer.class)
        .set(6, e.metrics(), CqlTypes.METRICS)
        .set(7, e.tags(), CqlTypes.TAGS)
        .setString(8, e.payload())
        .setLong(9, RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId()))
        .setInt(10, RowKeys.ttlSeconds(e.ts(), now, config.events().retention()))
        .build();
  }

  BoundStatement bucket(WritePlan.BucketKey key, long now) {
    return cql.bucket()
        .boundStatementBuilder()
        .setString(0, key.name())
        .setInstant(1, Instant.ofEpochMilli(key.bucket()))
        .setInt(
            2,
            RowKeys.ttlSeconds(
                key.bucket() + buckets.lengthMillis(), now, config.events().retention()))
        .build();
  }

  BoundStatement typeBucket(WritePlan.BucketKey key, long now) {
    return cql.typeBucket()
        .bind(
            key.name(),
            Instant.ofEpochMilli(key.bucket()),
            RowKeys.ttlSeconds(
                key.bucket() + buckets.lengthMillis(), now, config.events().retention()));
  }

  /** A fleet_index pointer, at the event's write time: a later event's delete or write wins. */
  BoundStatement fleet(String facet, FleetMembership.Change c, long now) {
    Event e = c.event();
    return cql.fleet()
        .bind(
            facet,
            FleetFacets.shard(e.deviceId(), config.fleet().shards()),
            e.deviceId(),
            Instant.ofEpochMilli(e.ts()),
            c.writeTs(),
            RowKeys.ttlSeconds(e.ts(), now, config.events().retention()));
  }

  /** Removes a pointer the device left, one refresh back (see {@link FleetMembership}). */
  BoundStatement fleetDelete(String facet, FleetMembership.Change c) {
    Event e = c.event();
    return cql.fleetDelete()
        .bind(
            c.deleteTs(),
            facet,
            FleetFacets.shard(e.deviceId(), config.fleet().shards()),
            e.deviceId());
  }

  BoundStatement activity(FleetMembership.Change c) {
    Event e = c.event();
    return cql.activity()
        .bind(
            Instant.ofEpochMilli(TimeBuckets.hourOf(e.ts())),
            FleetFacets.shard(e.deviceId(), config.fleet().shards()),
            e.deviceId(),
            Instant.ofEpochMilli(e.ts()),
            c.writeTs());
  }

  BoundStatement abnormal(WritePlan.AbnormalKey key, Event e, long now) {
    return cql.abnormal()
        .boundStatementBuilder()
        .setInstant(0, Instant.ofEpochMilli(key.hour()))
        .setInt(1, key.salt())
        .setInt(2, key.code())
        .setString(3, key.deviceId())
        .setInstant(4, Instant.ofEpochMilli(e.ts()))
        .setString(5, e.status())
        .setLong(6, RowKeys.eventTimeWriteTimestamp(e.ts(), e.eventId()))
        .setInt(7, RowKeys.ttlSeconds(e.ts(), now, config.cassandra().abnormalRetention()))
        .build();
  }

  BoundStatement mark(RollupMarks.Mark m) {
    return cql.mark()
        .bind(
            m.shard(),
            Instant.ofEpochMilli(m.dueBucket()),
            Instant.ofEpochMilli(m.hour()),
            m.deviceId());
  }

  /** The durable count record of one write attempt, filed under its attempt's bucket. */
  BoundStatement countJournal(int shard, long bucket, java.util.UUID entryId, ByteBuffer facts) {
    return cql.countJournal().bind(shard, Instant.ofEpochMilli(bucket), entryId, facts.duplicate());
  }

  /** A device hour reopened by a late event, until the recompute of the mark's bucket. */
  BoundStatement deviceReopened(RollupMarks.Mark stamped) {
    return cql.deviceReopened()
        .bind(
            stamped.deviceId(),
            Instant.ofEpochMilli(stamped.hour()),
            Instant.ofEpochMilli(stamped.dueBucket()));
  }

  /** The same for the day stats of the device's shard. */
  BoundStatement shardReopened(RollupMarks.Mark stamped) {
    return cql.shardReopened()
        .bind(
            TimeBuckets.utcDay(stamped.hour()),
            stamped.shard(),
            Instant.ofEpochMilli(stamped.hour()),
            Instant.ofEpochMilli(stamped.dueBucket()));
  }
}
