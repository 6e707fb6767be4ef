package io.ambergarden.lease;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan loop of a leased shard table, shared by the rollups and the media sweeper. Every scan
 * creates the shard rows still missing ({@link ShardRows}), reads the rows, claims this instance's
 * fair share of the leases ({@link Leases}) and hands the rows it holds to the feature's work;
 * while that work runs, held leases are renewed as they come due. Stopping gives the held leases
 * back so another instance takes the shards over at once instead of after the TTL.
 *
 * <p>Not a verticle: the owning verticle passes its {@link Vertx} to {@link #start} for the two
 * timers, and everything runs on that verticle's context.
 *
 * @param <R> a row of the feature's shard table: its lease and whatever progress the work needs
 */
public final class ShardLeaseLoop<R> {
  private static final Logger LOG = LoggerFactory.getLogger(ShardLeaseLoop.class);

  /**
   * The feature's shard table. {@code createMissing} writes every row with {@code IF NOT EXISTS}
   * (so it may run again); {@code read} reads every shard's row; {@code lease} is a row's lease.
   */
  public record Table<R>(
      Supplier<Future<?>> createMissing,
      Supplier<Future<List<R>>> read,
      Function<R, LeasePlanner.Shard> lease) {}

  private final String name;
  private final Table<R> table;
  private final Leases leases;
  private final LongSupplier clock;
  private final Function<List<R>, Future<Void>> work;
  private final ShardRows rows;
  private Vertx vertx;
  private long scanTimer = -1;
  private long renewTimer = -1;
  private boolean scanning;
  private boolean claimed;
  private Future<Void> renewing = Future.succeededFuture();
  // read by the work, which may look at it off the event loop (object store callbacks)
  private volatile boolean stopping;

  /**
   * @param name the scan in logs ("rollup", "media sweep")
   * @param clock the time leases are planned and claimed at, in milliseconds
   * @param work processes the rows of the shards held, in the order claimed; its failure fails the
   *     scan (logged, retried next scan)
   */
  public ShardLeaseLoop(
      String name,
      Table<R> table,
      Leases leases,
      LongSupplier clock,
      Function<List<R>, Future<Void>> work) {
    this.name = name;
    this.table = table;
    this.leases = leases;
    this.clock = clock;
    this.work = work;
    this.rows = new ShardRows(table.createMissing());
  }

  /**
   * Creates the shard rows (a failure is left to the first scan), then scans every {@code
   * scanEvery} and renews at the lease protocol's tick.
   */
  public Future<Void> start(Vertx vertx, Duration scanEvery) {
    this.vertx = vertx;
    return rows.ensureAtStart(LOG, name)
        .onSuccess(
            v -> {
              scanTimer = vertx.setPeriodic(scanEvery.toMillis(), id -> scan());
              leases
                  .renewalTick()
                  .ifPresent(
                      tick -> renewTimer = vertx.setPeriodic(tick.toMillis(), id -> renewOnce()));
            });
  }

  /** Stops scanning and gives back the leases this instance owns; never fails. */
  public Future<Void> stop() {
    stopping = true;
    if (vertx != null) {
      vertx.cancelTimer(scanTimer);
      vertx.cancelTimer(renewTimer);
    }
    return table
        .read()
        .get()
        .compose(
            read -> {
              List<Future<?>> releases = new ArrayList<>();
              for (R r : read) {
                LeasePlanner.Shard lease = table.lease().apply(r);
                if (leases.owner().equals(lease.owner())) {
                  releases.add(leases.release(lease.shard()));
                }
              }
              return Future.join(releases);
            })
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }

  /** Whether {@link #stop} was called: the work stops at its next step. */
  public boolean stopping() {
    return stopping;
  }

  /** One scan unless one is still running. */
  void scan() {
    if (scanning || stopping) {
      return;
    }
    scanning = true;
    scanOnce()
        .onComplete(
            ar -> {
              scanning = false;
              claimed = false;
              if (ar.failed() && !stopping) {
                LOG.warn("{} scan failed (retried next scan): {}", name, ar.cause().toString());
              }
            });
  }

  /** Renews the held leases that are due, one round at a time, only between claims. */
  void renewOnce() {
    if (stopping || !claimed || !renewing.isComplete()) {
      return;
    }
    renewing = leases.renewDue(clock.getAsLong());
  }

  Future<Void> scanOnce() {
    // claim and renewal condition on the same lease_until: never both in flight
    claimed = false;
    return rows.ensure()
        .recover(
            err -> {
              // the rows that exist are still scanned: a contended create must not stop the others
              LOG.warn(
                  "{} shard rows not all created yet ({}); retried next scan",
                  name,
                  err.toString());
              return Future.succeededFuture();
            })
        .transform(ar -> renewing)
        .transform(ar -> table.read().get())
        .compose(this::claim)
        .onComplete(ar -> claimed = ar.succeeded())
        .compose(work);
  }

  /** Claims on the rows read; completes with the rows of the shards held, in claim order. */
  private Future<List<R>> claim(List<R> read) {
    Map<Integer, R> byShard = new LinkedHashMap<>();
    List<LeasePlanner.Shard> view = new ArrayList<>();
    for (R r : read) {
      LeasePlanner.Shard lease = table.lease().apply(r);
      byShard.put(lease.shard(), r);
      view.add(lease);
    }
    return leases
        .claim(view, clock.getAsLong())
        .map(
            mine ->
                mine.stream().map(s -> byShard.get(s.shard())).filter(Objects::nonNull).toList());
  }
}
