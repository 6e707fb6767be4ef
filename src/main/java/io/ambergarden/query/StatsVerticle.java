package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.AbnormalQuery;
import io.ambergarden.bus.ActivityQuery;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.RollupsQuery;
import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.metrics.ReadMeters;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Counter (through {@link CounterReads}), abnormal-device, activity and rollup reads. Every read
 * touches a bounded, computed set of partitions.
 */
public final class StatsVerticle extends VerticleBase {
  /** Partition reads in flight at once per query. */
  static final int READ_PARALLELISM = 16;

  /** Distinct abnormal devices remembered per query; beyond it the answer says truncated. */
  static final int MAX_ABNORMAL_DEVICES = 100_000;

  static final int DEVICE_IDS_PER_CODE = 100;

  /** Distinct active devices counted per query; beyond it the answer says truncated. */
  static final int MAX_ACTIVE_DEVICES = 1_000_000;

  private final AmberConfig config;
  private CassandraReads reads;
  private StatsStatements cql;
  private CounterReads counters;

  /** The read meters (the service's, or unscraped ones when deployed alone). */
  private final ReadMeters meters;

  public StatsVerticle(AmberConfig config) {
    this(config, ReadMeters.unscraped());
  }

  public StatsVerticle(AmberConfig config, ReadMeters meters) {
    this.meters = meters;
    this.config = config;
  }

  @Override
  public Future<?> start() {
    CassandraClient client = CassandraClients.reads(vertx, config.cassandra());
    reads = new CassandraReads(client, meters);
    return StatsStatements.prepare(client, config.cassandra().keyspace())
        .compose(
            prepared -> {
              cql = prepared;
              counters = new CounterReads(reads, prepared, config, READ_PARALLELISM);
              return Future.all(
                  QueryConsumers.serve(vertx, meters, StatusStatsQuery.ENDPOINT, counters::days),
                  QueryConsumers.serve(
                      vertx, meters, DeviceCountersQuery.ENDPOINT, counters::device),
                  QueryConsumers.serve(vertx, meters, AbnormalQuery.ENDPOINT, this::abnormal),
                  QueryConsumers.serve(vertx, meters, RollupsQuery.ENDPOINT, this::rollups),
                  QueryConsumers.serve(vertx, meters, ActivityQuery.ENDPOINT, this::activity));
            });
  }

  /**
   * Distinct devices seen in [now - minutes, now]: hours x fleet.shards partition reads of
   * devices_by_hour, whose rows carry each device's last event time of the hour (to a few minutes).
   */
  private Future<ActivityQuery.Reply> activity(ActivityQuery.Request q) {
    long now = System.currentTimeMillis();
    long from = now - q.minutes() * 60_000L;
    List<Statement<?>> reads = new ArrayList<>();
    for (long h = TimeBuckets.hourOf(from); h <= TimeBuckets.hourOf(now); h += TimeBuckets.HOUR) {
      for (int s = 0; s < config.fleet().shards(); s++) {
        reads.add(cql.activityHour().bind(Instant.ofEpochMilli(h), s));
      }
    }
    return readAll(reads)
        .map(
            rows -> {
              Set<String> devices = new HashSet<>();
              boolean truncated = false;
              for (Row r : rows) {
                if (r.getInstant(1).toEpochMilli() < from) {
                  continue;
                }
                if (devices.size() >= MAX_ACTIVE_DEVICES && !devices.contains(r.getString(0))) {
                  truncated = true;
                } else {
                  devices.add(r.getString(0));
                }
              }
              return new ActivityQuery.Reply(q.minutes(), from, now, devices.size(), truncated);
            });
  }

  /**
   * Distinct abnormal devices by code in [now - minutes, now]: hours x salts partition reads, never
   * detail.
   */
  private Future<AbnormalQuery.Reply> abnormal(AbnormalQuery.Request q) {
    long now = System.currentTimeMillis();
    long from = now - q.minutes() * 60_000L;
    List<Statement<?>> reads = new ArrayList<>();
    for (long h = TimeBuckets.hourOf(from); h <= TimeBuckets.hourOf(now); h += TimeBuckets.HOUR) {
      for (int s = 0; s < config.cassandra().abnormalSalts(); s++) {
        reads.add(cql.abnormalHour().bind(Instant.ofEpochMilli(h), s));
      }
    }
    return readAll(reads)
        .map(
            rows -> {
              Map<Integer, Set<String>> byCode = new TreeMap<>();
              int remembered = 0;
              boolean truncated = false;
              for (Row r : rows) {
                if (r.getInstant(2).toEpochMilli() < from) {
                  continue;
                }
                Set<String> devices = byCode.computeIfAbsent(r.getInt(0), k -> new TreeSet<>());
                if (devices.contains(r.getString(1))) {
                  continue;
                }
                if (remembered >= MAX_ABNORMAL_DEVICES) {
                  truncated = true;
                  continue;
                }
                devices.add(r.getString(1));
                remembered++;
              }
              List<AbnormalQuery.CodeDevices> codes = new ArrayList<>();
              Set<String> all = new TreeSet<>();
              byCode.forEach(
                  (code, devices) -> {
                    all.addAll(devices);
                    codes.add(
                        new AbnormalQuery.CodeDevices(
                            code < 0 ? null : code,
                            devices.size(),
                            devices.stream().limit(DEVICE_IDS_PER_CODE).toList()));
                  });
              return new AbnormalQuery.Reply(q.minutes(), from, now, all.size(), codes, truncated);
            });
  }

  /** Hourly aggregates in [from, to), oldest first; one partition read per UTC day. */
  private Future<RollupsQuery.Reply> rollups(RollupsQuery.Request q) {
    List<Statement<?>> reads = new ArrayList<>();
    for (LocalDate d = TimeBuckets.utcDay(q.from());
        !d.isAfter(TimeBuckets.utcDay(q.to() - 1));
        d = d.plusDays(1)) {
      reads.add(
          cql.rollupDay()
              .bind(q.deviceId(), d, Instant.ofEpochMilli(q.from()), Instant.ofEpochMilli(q.to())));
    }
    return readAll(reads)
        .map(
            rows -> {
              Map<Long, Map<String, RollupsQuery.Aggregate>> byHour = new TreeMap<>();
              for (Row r : rows) {
                long count = r.getLong(2);
                byHour
                    .computeIfAbsent(r.getInstant(0).toEpochMilli(), h -> new TreeMap<>())
                    .put(
                        r.getString(1),
                        new RollupsQuery.Aggregate(
                            count, r.getDouble(3), r.getDouble(4), r.getDouble(5) / count));
              }
              List<RollupsQuery.Hour> items = new ArrayList<>();
              byHour.forEach((hour, metrics) -> items.add(new RollupsQuery.Hour(hour, metrics)));
              return new RollupsQuery.Reply(q.deviceId(), q.from(), q.to(), items);
            });
  }

  /** Runs the reads READ_PARALLELISM at a time; rows of all of them. */
  private Future<List<Row>> readAll(List<Statement<?>> statements) {
    return reads
        .readEach(statements, READ_PARALLELISM)
        .map(
            results -> {
              List<Row> out = new ArrayList<>();
              results.forEach(out::addAll);
              return out;
            });
  }
}
