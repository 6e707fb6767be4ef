package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.FullFetch;
import io.ambergarden.metrics.ReadMeters;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Idempotent reads with the read profile, and bounded fan-out of many of them. */
final class CassandraReads {
  private final CassandraClient client;
  private final ReadMeters meters;

  /** {@code meters} hear each read's latency and the speculative executions it started. */
  CassandraReads(CassandraClient client, ReadMeters meters) {
    this.client = client;
    this.meters = meters;
  }

  Future<List<Row>> read(Statement<?> s) {
    long start = System.nanoTime();
    return FullFetch.of(
            client,
            s.setExecutionProfileName(CassandraClients.READ_PROFILE).setIdempotent(true),
            meters::speculativeExecutions)
        .onComplete(r -> meters.cassandraRead(System.nanoTime() - start));
  }

  /**
   * Reads {@code s} a page of {@code pageSize} rows at a time, handing each page's rows to {@code
   * page} before the next is fetched, so at most one page is held; stops early when {@code page}
   * returns false.
   */
  Future<Void> readPages(Statement<?> s, int pageSize, Predicate<Iterable<Row>> page) {
    long start = System.nanoTime();
    return client
        .execute(
            s.setExecutionProfileName(CassandraClients.READ_PROFILE)
                .setIdempotent(true)
                .setPageSize(pageSize))
        .compose(
            rs -> {
              meters.speculativeExecutions(rs.getExecutionInfo().getSpeculativeExecutionCount());
              return pages(rs, page);
            })
        .onComplete(r -> meters.cassandraRead(System.nanoTime() - start));
  }

  private static Future<Void> pages(ResultSet rs, Predicate<Iterable<Row>> page) {
    if (!page.test(rs.currentPage()) || !rs.hasMorePages()) {
      return Future.succeededFuture();
    }
    return rs.fetchNextPage().compose(next -> pages(next, page));
  }

  /** Runs every read, at most {@code parallelism} at once; results in the order of the reads. */
  Future<List<List<Row>>> readEach(List<? extends Statement<?>> reads, int parallelism) {
    List<List<Row>> out = new ArrayList<>(reads.size());
    return readFrom(reads, 0, Math.max(1, parallelism), out).map(out);
  }

  private Future<Void> readFrom(
      List<? extends Statement<?>> reads, int from, int parallelism, List<List<Row>> out) {
    if (from >= reads.size()) {
      return Future.succeededFuture();
    }
    int to = Math.min(reads.size(), from + parallelism);
    List<Future<List<Row>>> group = new ArrayList<>();
    for (Statement<?> s : reads.subList(from, to)) {
      group.add(read(s));
    }
    return Future.all(group)
        .compose(
            v -> {
              group.forEach(f -> out.add(f.result()));
              return readFrom(reads, to, parallelism, out);
            });
  }

  /** A write from the read path (a stale index row's repair); fire and forget is fine. */
  Future<Void> write(Statement<?> s) {
    return client.execute(s.setIdempotent(true)).mapEmpty();
  }
}
