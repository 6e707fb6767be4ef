package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * Counter reads: the exact rows of reconciled hours and the approximate counters of the others,
 * combined by {@link ExactCounts}. The count shard of a device is its rollup shard. Not
 * thread-safe: one per verticle instance.
 */
final class CounterReads {
  /** How long the shards' progress rows are reused before they are read again. */
  static final long PROGRESS_MAX_AGE_MILLIS = 1_000;

  private final CassandraReads reads;
  private final StatsStatements cql;
  private final AmberConfig config;
  private final int parallelism;
  private final int shards;
  private final List<Integer> allShards;

  private Future<ExactCounts.Progress> progress;
  private long progressReadAt;

  CounterReads(CassandraReads reads, StatsStatements cql, AmberConfig config, int parallelism) {
    this.reads = reads;
    this.cql = cql;
    this.config = config;
    this.parallelism = parallelism;
    this.shards = config.rollups().shards();
    this.allShards = IntStream.range(0, shards).boxed().toList();
  }

  /**
   * Reopened hours, exact rows before E and the approximate partitions from day(E) on at once; then
   * the approximate partitions of reopened hours' earlier days, if any.
   */
  Future<DeviceCountersQuery.Reply> device(DeviceCountersQuery.Request q) {
    String id = q.deviceId();
    int shard = RowKeys.salt(id, shards);
    LocalDate oldest = oldestDay();
    LocalDate newest = newestDay();
    return progress()
        .compose(
            p -> {
              Long e = p.reconciledThrough(shard);
              List<LocalDate> recentDays =
                  ExactCounts.deviceApproxDays(e, Set.of(), oldest, newest);
              Future<List<Row>> reopened = reads.read(cql.deviceReopened().bind(id));
              Future<List<Row>> exact =
                  e == null
                      ? Future.succeededFuture(List.of())
                      : reads.read(cql.deviceExact().bind(id, Instant.ofEpochMilli(e)));
              Future<List<List<Row>>> recent =
                  reads.readEach(approxReads(id, shard, recentDays), parallelism);
              return Future.all(reopened, exact, recent)
                  .compose(
                      v -> {
                        Set<Long> hours = hours(reopened.result(), 0);
                        List<LocalDate> earlier =
                            new ArrayList<>(ExactCounts.deviceApproxDays(e, hours, oldest, newest));
                        earlier.removeAll(recentDays);
                        return reads
                            .readEach(approxReads(id, shard, earlier), parallelism)
                            .map(
                                more -> {
                                  List<ExactCounts.HourCount> approx = new ArrayList<>();
                                  recent.result().forEach(rows -> approx.addAll(hourCounts(rows)));
                                  more.forEach(rows -> approx.addAll(hourCounts(rows)));
                                  ExactCounts.DeviceCounts c =
                                      ExactCounts.device(
                                          e, hours, hourCounts(exact.result()), approx);
                                  return new DeviceCountersQuery.Reply(
                                      id,
                                      c.total(),
                                      c.byStatus(),
                                      c.exactThrough(),
                                      p.countedThrough());
                                });
                      });
            });
  }

  private List<Statement<?>> approxReads(String deviceId, int shard, List<LocalDate> days) {
    List<Statement<?>> out = new ArrayList<>(days.size());
    days.forEach(d -> out.add(cql.deviceApprox().bind(d, shard, deviceId)));
    return out;
  }

  /**
   * Each day's reopened hours (one read per day over all shards), then per (day, shard) the exact
   * rows if an hour of the day may be exact and the approximate counters if an hour must be.
   */
  Future<StatusStatsQuery.Reply> days(StatusStatsQuery.Request q) {
    List<LocalDate> days = q.from().datesUntil(q.to()).toList();
    return progress()
        .compose(
            p -> {
              List<Statement<?>> reopenedReads = new ArrayList<>();
              days.forEach(d -> reopenedReads.add(cql.dayReopened().bind(d, allShards)));
              return reads
                  .readEach(reopenedReads, parallelism)
                  .compose(reopenedRows -> dayRows(p, days, reopenedRows));
            });
  }

  private Future<StatusStatsQuery.Reply> dayRows(
      ExactCounts.Progress p, List<LocalDate> days, List<List<Row>> reopenedRows) {
    List<Map<Integer, Set<Long>>> reopened = new ArrayList<>();
    List<Statement<?>> rowReads = new ArrayList<>();
    int[][] exactAt = new int[days.size()][shards];
    int[][] approxAt = new int[days.size()][shards];
    for (int d = 0; d < days.size(); d++) {
      LocalDate day = days.get(d);
      Map<Integer, Set<Long>> byShard = new HashMap<>();
      for (Row r : reopenedRows.get(d)) {
        byShard.computeIfAbsent(r.getInt(0), k -> new HashSet<>()).add(millis(r, 1));
      }
      reopened.add(byShard);
      for (int s = 0; s < shards; s++) {
        Long e = p.reconciledThrough(s);
        exactAt[d][s] = -1;
        approxAt[d][s] = -1;
        if (ExactCounts.dayNeedsExact(day, e)) {
          exactAt[d][s] = rowReads.size();
          rowReads.add(cql.dayExact().bind(day, s, Instant.ofEpochMilli(e)));
        }
        if (ExactCounts.dayNeedsApprox(day, e, byShard.getOrDefault(s, Set.of()))) {
          approxAt[d][s] = rowReads.size();
          rowReads.add(cql.dayApprox().bind(day, s));
        }
      }
    }
    return reads
        .readEach(rowReads, parallelism)
        .map(
            results -> {
              List<StatusStatsQuery.Day> out = new ArrayList<>();
              for (int d = 0; d < days.size(); d++) {
                List<ExactCounts.ShardDay> perShard = new ArrayList<>(shards);
                for (int s = 0; s < shards; s++) {
                  perShard.add(
                      new ExactCounts.ShardDay(
                          p.reconciledThrough(s),
                          reopened.get(d).getOrDefault(s, Set.of()),
                          dimensionCounts(results, exactAt[d][s]),
                          dimensionCounts(results, approxAt[d][s])));
                }
                out.add(ExactCounts.day(days.get(d), perShard));
              }
              return new StatusStatsQuery.Reply(shards, out, p.countedThrough());
            });
  }

  /**
   * The shards' progress, read again once it is older than PROGRESS_MAX_AGE_MILLIS (or failed);
   * requests meanwhile share it. A stale progress only serves fewer hours from the exact rows.
   */
  private Future<ExactCounts.Progress> progress() {
    long now = System.currentTimeMillis();
    if (progress == null || progress.failed() || now - progressReadAt >= PROGRESS_MAX_AGE_MILLIS) {
      progressReadAt = now;
      // without reconciliation no hour is exact: its progress is not read
      Future<List<Row>> done =
          config.counters().reconcile()
              ? reads.read(cql.reconcileProgress().bind(allShards))
              : Future.succeededFuture(List.of());
      Future<List<Row>> counted = reads.read(cql.countProgress().bind(allShards));
      progress =
          Future.all(done, counted)
              .map(
                  v ->
                      ExactCounts.progress(
                          shards,
                          millisByShard(done.result()),
                          millisByShard(counted.result()),
                          config.rollups().grace()));
    }
    return progress;
  }

  /** The oldest day whose approximate counters may still exist: the retention, as the API. */
  private LocalDate oldestDay() {
    return LocalDate.now(ZoneOffset.UTC).minusDays(config.events().retention().toDays() + 1);
  }

  /** The newest day an accepted event may fall on (event.future-skew ahead). */
  private LocalDate newestDay() {
    return TimeBuckets.utcDay(System.currentTimeMillis() + config.events().futureSkew().toMillis());
  }

  private static Map<Integer, Long> millisByShard(List<Row> rows) {
    Map<Integer, Long> out = new HashMap<>();
    for (Row r : rows) {
      Instant t = r.getInstant(1);
      if (t != null) {
        out.put(r.getInt(0), t.toEpochMilli());
      }
    }
    return out;
  }

  private static Set<Long> hours(List<Row> rows, int column) {
    Set<Long> out = new TreeSet<>();
    rows.forEach(r -> out.add(millis(r, column)));
    return out;
  }

  private static long millis(Row r, int column) {
    return r.getInstant(column).toEpochMilli();
  }

  private static List<ExactCounts.HourCount> hourCounts(List<Row> rows) {
    List<ExactCounts.HourCount> out = new ArrayList<>(rows.size());
    rows.forEach(
        r -> out.add(new ExactCounts.HourCount(millis(r, 0), r.getString(1), r.getLong(2))));
    return out;
  }

  private static List<ExactCounts.DimensionCount> dimensionCounts(
      List<List<Row>> results, int index) {
    if (index < 0) {
      return List.of();
    }
    List<ExactCounts.DimensionCount> out = new ArrayList<>();
    results
        .get(index)
        .forEach(
            r ->
                out.add(
                    new ExactCounts.DimensionCount(
                        millis(r, 0), r.getString(1), r.getString(2), r.getLong(3))));
    return out;
  }
}
