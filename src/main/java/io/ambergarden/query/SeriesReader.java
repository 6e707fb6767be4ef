package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A device's metric as a series ({@link SeriesQuery}). A step under an hour aggregates the detail
 * rows of [from, to); an hourly step reads the rollups of the hours {@link SeriesPlan} finds up to
 * date and the detail rows of the others. Detail is walked bucket by bucket through the device's
 * non-empty buckets (buckets_by_device) and every partition of each (its salted slices for a hot
 * device, from device_slices), a page at a time into {@link SeriesBuckets}: what is held is one
 * page and one accumulator per bucket of the answer, never the range (a sliced bucket adds the
 * identities of its rows stored outside their slice, {@link SliceStrays}). Past
 * query.series-max-scanned rows the read stops with a 400.
 */
final class SeriesReader {
  /** Rows per detail page. */
  static final int PAGE_ROWS = 2_000;

  /** Rollup day partitions read at once. */
  static final int ROLLUP_PARALLELISM = 8;

  private final CassandraReads reads;
  private final SeriesStatements cql;
  private final AmberConfig config;
  private final TimeBuckets detailBuckets;
  private final long maxScanned;

  SeriesReader(CassandraReads reads, SeriesStatements cql, AmberConfig config) {
    this.reads = reads;
    this.cql = cql;
    this.config = config;
    this.detailBuckets = new TimeBuckets(config.cassandra().bucket().length);
    this.maxScanned = config.query().seriesMaxScanned();
  }

  Future<SeriesQuery.Reply> read(SeriesQuery.Request q) {
    SeriesBuckets buckets = new SeriesBuckets(q.stepMillis(), q.from(), q.to());
    Future<SeriesPlan> plan =
        q.stepMillis() < SeriesPlan.HOUR
            ? Future.succeededFuture(SeriesPlan.detailOnly(q.from(), q.to()))
            : hourlyPlan(q);
    return plan.compose(p -> rollups(q, p, buckets).compose(v -> detail(q, p.detail(), buckets)))
        .map(
            v ->
                new SeriesQuery.Reply(
                    q.deviceId(), q.metric(), q.stepMillis(), q.from(), q.to(), buckets.points()));
  }

  /** How far the device's rollup shard is reconciled, and its hours reopened by late events. */
  private Future<SeriesPlan> hourlyPlan(SeriesQuery.Request q) {
    if (!config.rollups().enabled()) {
      return Future.succeededFuture(SeriesPlan.of(q.from(), q.to(), null, Set.of()));
    }
    int shard = RowKeys.salt(q.deviceId(), config.rollups().shards());
    Future<List<Row>> done = reads.read(cql.shardDoneUntil().bind(shard));
    Future<List<Row>> reopened =
        reads.read(
            cql.reopenedHours()
                .bind(
                    q.deviceId(),
                    Instant.ofEpochMilli(TimeBuckets.hourOf(q.from())),
                    Instant.ofEpochMilli(q.to())));
    return Future.all(done, reopened)
        .map(
            v -> {
              List<Row> rows = done.result();
              Instant doneUntil = rows.isEmpty() ? null : rows.get(0).getInstant(0);
              Long e =
                  ExactCounts.reconciledThrough(
                      doneUntil == null ? null : doneUntil.toEpochMilli(),
                      config.rollups().grace());
              Set<Long> hours = new HashSet<>();
              reopened.result().forEach(r -> hours.add(r.getInstant(0).toEpochMilli()));
              return SeriesPlan.of(q.from(), q.to(), e, hours);
            });
  }

  /** The up-to-date hours' rollups of the metric: one partition read per UTC day holding any. */
  private Future<Void> rollups(SeriesQuery.Request q, SeriesPlan plan, SeriesBuckets buckets) {
    if (plan.rollupHours().isEmpty()) {
      return Future.succeededFuture();
    }
    Map<LocalDate, long[]> days = new TreeMap<>();
    for (long h : plan.rollupHours()) {
      long[] span = days.computeIfAbsent(TimeBuckets.utcDay(h), d -> new long[] {h, h});
      span[1] = h;
    }
    List<Statement<?>> statements = new ArrayList<>();
    days.forEach(
        (day, span) ->
            statements.add(
                cql.rollupHours()
                    .bind(
                        q.deviceId(),
                        day,
                        Instant.ofEpochMilli(span[0]),
                        Instant.ofEpochMilli(span[1] + SeriesPlan.HOUR))));
    Set<Long> wanted = new HashSet<>(plan.rollupHours());
    return rollupGroups(q, statements, 0, wanted, buckets);
  }

  /** The day reads ROLLUP_PARALLELISM at a time, each group added before the next is read. */
  private Future<Void> rollupGroups(
      SeriesQuery.Request q,
      List<Statement<?>> statements,
      int from,
      Set<Long> wanted,
      SeriesBuckets buckets) {
    if (from >= statements.size()) {
      return Future.succeededFuture();
    }
    int to = Math.min(statements.size(), from + ROLLUP_PARALLELISM);
    return reads
        .readEach(statements.subList(from, to), ROLLUP_PARALLELISM)
        .compose(
            results -> {
              for (List<Row> rows : results) {
                for (Row r : rows) {
                  long hour = r.getInstant(0).toEpochMilli();
                  if (wanted.contains(hour) && q.metric().equals(r.getString(1))) {
                    buckets.addHour(
                        hour, r.getLong(2), r.getDouble(3), r.getDouble(4), r.getDouble(5));
                  }
                }
              }
              return rollupGroups(q, statements, to, wanted, buckets);
            });
  }

  /**
   * The detail rows of the ranges, bucket by bucket, each bucket's partitions one after another.
   */
  private Future<Void> detail(
      SeriesQuery.Request q, List<SeriesPlan.Range> ranges, SeriesBuckets buckets) {
    if (ranges.isEmpty()) {
      return Future.succeededFuture();
    }
    Instant lower = Instant.ofEpochMilli(detailBuckets.bucketOf(ranges.get(0).from()));
    Instant upper =
        Instant.ofEpochMilli(detailBuckets.bucketOf(ranges.get(ranges.size() - 1).to() - 1));
    Future<List<Row>> bucketRows =
        reads.read(cql.bucketsOfDevice().bind(q.deviceId(), lower, upper));
    Future<List<Row>> sliceRows = reads.read(cql.slicesOfDevice().bind(q.deviceId(), lower, upper));
    return Future.all(bucketRows, sliceRows)
        .compose(
            v -> {
              Map<Long, List<DetailSlices.Slice>> slices = SliceRows.byBucket(sliceRows.result());
              List<Long> starts = new ArrayList<>();
              bucketRows.result().forEach(r -> starts.add(r.getInstant(0).toEpochMilli()));
              starts.sort(null);
              Walk walk = new Walk(q, ranges, slices, buckets);
              return walk.bucket(starts, 0);
            });
  }

  /** One request's walk over detail buckets, with the rows it scanned so far. */
  private final class Walk {
    final SeriesQuery.Request q;
    final List<SeriesPlan.Range> ranges;
    final Map<Long, List<DetailSlices.Slice>> slices;
    final SeriesBuckets buckets;
    long scanned;

    Walk(
        SeriesQuery.Request q,
        List<SeriesPlan.Range> ranges,
        Map<Long, List<DetailSlices.Slice>> slices,
        SeriesBuckets buckets) {
      this.q = q;
      this.ranges = ranges;
      this.slices = slices;
      this.buckets = buckets;
    }

    Future<Void> bucket(List<Long> starts, int i) {
      if (i >= starts.size()) {
        return Future.succeededFuture();
      }
      long bucket = starts.get(i);
      long end = bucket + detailBuckets.lengthMillis();
      List<SeriesPlan.Range> parts = new ArrayList<>();
      for (SeriesPlan.Range r : ranges) {
        if (r.from() < end && r.to() > bucket) {
          parts.add(new SeriesPlan.Range(Math.max(r.from(), bucket), Math.min(r.to(), end)));
        }
      }
      List<Long> partitions =
          DetailSlices.partitionsOf(bucket, slices.getOrDefault(bucket, List.of()));
      // a redelivery racing a slice split can store an event in two partitions: it counts once
      SliceStrays strays = new SliceStrays(bucket, slices.getOrDefault(bucket, List.of()));
      List<Read> todo = new ArrayList<>();
      for (SeriesPlan.Range r : parts) {
        for (long p : partitions) {
          todo.add(new Read(p, r));
        }
      }
      return read(todo, 0, strays).compose(v -> bucket(starts, i + 1));
    }

    private Future<Void> read(List<Read> todo, int i, SliceStrays strays) {
      if (i >= todo.size()) {
        return Future.succeededFuture();
      }
      Read r = todo.get(i);
      return reads
          .readPages(
              cql.metricsInRange()
                  .bind(
                      q.deviceId(),
                      Instant.ofEpochMilli(r.partition()),
                      Instant.ofEpochMilli(r.range().from()),
                      Instant.ofEpochMilli(r.range().to())),
              PAGE_ROWS,
              rows -> add(rows, r.partition(), strays))
          .compose(
              v ->
                  scanned > maxScanned
                      ? Future.failedFuture(
                          FailureCode.BAD_REQUEST.exception(
                              "the range holds more than "
                                  + maxScanned
                                  + " stored events to scan (query.series-max-scanned): ask for"
                                  + " a shorter range"
                                  + (q.stepMillis() < SeriesPlan.HOUR
                                      ? " or a step of an hour or more"
                                      : "")))
                      : read(todo, i + 1, strays));
    }

    /** Adds a page's values; false once the scan budget is spent. */
    private boolean add(Iterable<Row> rows, long partition, SliceStrays strays) {
      for (Row row : rows) {
        if (++scanned > maxScanned) {
          return false;
        }
        long ts = row.getInstant(0).toEpochMilli();
        if (!strays.counts(partition, ts, row.getString(1))) {
          continue;
        }
        Map<String, Double> metrics = row.get(2, CqlTypes.METRICS);
        Double value = metrics == null ? null : metrics.get(q.metric());
        if (value != null) {
          buckets.addValue(ts, value);
        }
      }
      return true;
    }
  }

  /** One partition's rows in a range. */
  private record Read(long partition, SeriesPlan.Range range) {}
}
