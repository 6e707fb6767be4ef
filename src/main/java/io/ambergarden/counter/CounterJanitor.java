package io.ambergarden.counter;

import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counter rows cannot expire (no TTL on counters), so the day partitions of status_counts_by_hour
 * and device_counts_by_hour that fell out of the retention are deleted whole: one partition
 * tombstone per (day, shard) and table, never a cell or row tombstone, and each day once per
 * process. Those days are never counted again (events older than the retention are refused), so a
 * deleted counter is never incremented again.
 */
final class CounterJanitor {
  private static final Logger LOG = LoggerFactory.getLogger(CounterJanitor.class);
  static final Duration INTERVAL = Duration.ofHours(6);

  /** Days looked at per run: covers a few days of downtime. */
  static final int WINDOW_DAYS = 7;

  private final Set<LocalDate> done = new HashSet<>();

  /**
   * The days to delete now: the {@value #WINDOW_DAYS} days that end two days before the oldest day
   * the stats endpoint still serves (today - retention days - 1), minus those already done.
   */
  List<LocalDate> due(LocalDate today, Duration retention) {
    LocalDate newest = today.minusDays(retention.toDays() + 1 + 2);
    List<LocalDate> out = new ArrayList<>();
    for (int i = WINDOW_DAYS - 1; i >= 0; i--) {
      LocalDate d = newest.minusDays(i);
      if (!done.contains(d)) {
        out.add(d);
      }
    }
    return out;
  }

  /** Deletes the due day partitions now and every {@link #INTERVAL}; returns the timer id. */
  long schedule(
      Vertx vertx, CassandraClient client, CounterStatements cql, int shards, Duration retention) {
    return vertx.setPeriodic(
        10_000, INTERVAL.toMillis(), id -> run(client, cql, shards, retention));
  }

  private void run(CassandraClient client, CounterStatements cql, int shards, Duration retention) {
    for (LocalDate day : due(LocalDate.now(ZoneOffset.UTC), retention)) {
      List<Future<?>> deletes = new ArrayList<>();
      for (int s = 0; s < shards; s++) {
        cql.deleteDay(day, s).forEach(d -> deletes.add(client.execute(d.setIdempotent(true))));
      }
      Future.all(deletes)
          .onSuccess(v -> done.add(day))
          .onFailure(err -> LOG.warn("counters of {} not deleted: {}", day, err.toString()));
    }
  }
}
