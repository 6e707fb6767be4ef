package io.ambergarden.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The shared scan loop against a fake lease table (the conditions of {@link LeaseClaims}' LWTs, see
 * {@link FakeLeaseTable}) and a recording work function. No Vert.x instance: the futures complete
 * on the test's thread.
 */
class ShardLeaseLoopTest {
  private static final long T0 = 1_750_000_000_000L;
  private static final long TTL = 30_000L;
  private static final String ME = "sweep-a";
  private static final String OTHER = "sweep-b";

  /** A feature's row: its lease and a progress column only the work reads. */
  private record Row(LeasePlanner.Shard lease, long progress) {}

  private final FakeLeaseTable table = new FakeLeaseTable(4, TTL);
  private final FakeLeases leases = new FakeLeases();
  private final List<List<Integer>> worked = new ArrayList<>();
  private final List<Long> progressSeen = new ArrayList<>();
  private Future<?> nextCreate = Future.succeededFuture();
  private int creates;
  private int reads;
  private Future<Void> nextWork = Future.succeededFuture();
  private long now = T0;

  private final ShardLeaseLoop<Row> loop =
      new ShardLeaseLoop<>(
          "test",
          new ShardLeaseLoop.Table<>(
              () -> {
                creates++;
                return nextCreate;
              },
              () -> {
                reads++;
                return Future.succeededFuture(
                    table.read().stream().map(s -> new Row(s, 100 + s.shard())).toList());
              },
              Row::lease),
          leases,
          () -> now,
          mine -> {
            worked.add(mine.stream().map(r -> r.lease().shard()).toList());
            mine.forEach(r -> progressSeen.add(r.progress()));
            return nextWork;
          });

  /** {@link Leases} on the fake table; renewals recorded, and held open when asked. */
  private final class FakeLeases implements Leases {
    final List<Long> renewals = new ArrayList<>();
    final List<Integer> released = new ArrayList<>();
    Promise<Void> renewal;
    Future<List<LeasePlanner.Shard>> failClaim;
    int claims;

    @Override
    public String owner() {
      return ME;
    }

    @Override
    public Future<List<LeasePlanner.Shard>> claim(List<LeasePlanner.Shard> rows, long at) {
      claims++;
      if (failClaim != null) {
        return failClaim;
      }
      List<Integer> held = table.apply(ME, at, LeasePlanner.plan(rows, ME, at));
      return Future.succeededFuture(rows.stream().filter(s -> held.contains(s.shard())).toList());
    }

    @Override
    public Future<Void> renewDue(long at) {
      renewals.add(at);
      renewal = Promise.promise();
      return renewal.future();
    }

    @Override
    public Future<Void> release(int shard) {
      released.add(shard);
      return Future.succeededFuture();
    }

    @Override
    public Optional<Duration> renewalTick() {
      return Optional.of(Duration.ofMillis(TTL / 6));
    }
  }

  private static <T> T done(Future<T> f) {
    assertThat(f.isComplete()).as("completed").isTrue();
    assertThat(f.succeeded()).as("succeeded: %s", f.cause()).isTrue();
    return f.result();
  }

  @Test
  void aScanCreatesTheRowsClaimsItsShareAndHandsTheHeldRowsToTheWork() {
    table.put(1, OTHER, T0 + TTL);
    table.put(3, OTHER, T0 + TTL);

    done(loop.scanOnce());

    assertThat(creates).isEqualTo(1);
    // two instances known, four shards: two each; the other's live leases are left alone
    assertThat(worked).hasSize(1);
    assertThat(worked.get(0)).containsExactlyInAnyOrder(0, 2);
    assertThat(progressSeen)
        .as("the work gets the whole rows")
        .containsExactlyInAnyOrder(100L, 102L);
    assertThat(table.owners(T0)).isEqualTo(owners(ME, OTHER, ME, OTHER));
  }

  @Test
  void theNextScanRenewsWhatItHoldsAndCreatesNoRowAgain() {
    done(loop.scanOnce());
    now = T0 + 5_000;

    done(loop.scanOnce());

    assertThat(creates).isEqualTo(1);
    assertThat(worked).hasSize(2);
    assertThat(worked.get(0)).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(worked.get(1)).as("renewals come in shard order").containsExactly(0, 1, 2, 3);
    assertThat(table.count(ME, T0 + 5_000 + TTL - 1))
        .as("renewed from the second scan")
        .isEqualTo(4);
  }

  @Test
  void aFailedRowCreateDoesNotStopTheScanOfTheRowsThatExistAndIsRetriedNextScan() {
    nextCreate = Future.failedFuture(new IllegalStateException("contended"));

    done(loop.scanOnce());
    nextCreate = Future.succeededFuture();
    done(loop.scanOnce());
    done(loop.scanOnce());

    assertThat(worked).hasSize(3);
    assertThat(creates).as("retried once, then created").isEqualTo(2);
  }

  @Test
  void aRenewalRunsOnlyWhileAClaimedScanWorksAndNeverTwiceAtOnce() {
    loop.renewOnce();
    assertThat(leases.renewals).as("nothing claimed yet").isEmpty();

    Promise<Void> work = Promise.promise();
    nextWork = work.future();
    loop.scan();
    now = T0 + 10_000;
    loop.renewOnce();
    loop.renewOnce(); // the first renewal is still in flight
    assertThat(leases.renewals).containsExactly(T0 + 10_000);

    leases.renewal.complete();
    loop.renewOnce();
    assertThat(leases.renewals).hasSize(2);

    work.complete();
    leases.renewal.complete();
    loop.renewOnce();
    assertThat(leases.renewals).as("the scan ended: the next claim renews").hasSize(2);
  }

  @Test
  void aClaimWaitsForTheRenewalInFlight() {
    Promise<Void> work = Promise.promise();
    nextWork = work.future();
    loop.scan();
    loop.renewOnce();
    work.complete();
    nextWork = Future.succeededFuture();
    int claimsBefore = leases.claims;

    Future<Void> next = loop.scanOnce();
    assertThat(leases.claims).as("held until the renewal is known").isEqualTo(claimsBefore);
    assertThat(reads).as("the rows are read only after it").isEqualTo(1);

    leases.renewal.complete();
    done(next);
    assertThat(leases.claims).isEqualTo(claimsBefore + 1);
  }

  @Test
  void aScanStillRunningIsNotStartedAgain() {
    Promise<Void> work = Promise.promise();
    nextWork = work.future();

    loop.scan();
    loop.scan();
    assertThat(worked).hasSize(1);

    work.complete();
    nextWork = Future.succeededFuture();
    loop.scan();
    assertThat(worked).hasSize(2);
  }

  @Test
  void aFailedClaimFailsTheScanWithoutWorkOrRenewal() {
    leases.failClaim = Future.failedFuture(new IllegalStateException("no quorum"));

    Future<Void> scan = loop.scanOnce();
    loop.renewOnce();

    assertThat(scan.cause()).hasMessage("no quorum");
    assertThat(worked).isEmpty();
    assertThat(leases.renewals).isEmpty();
  }

  @Test
  void stopGivesBackOnlyTheLeasesThisInstanceOwnsAndStartsNoScanAfter() {
    table.put(1, OTHER, T0 + TTL);
    done(loop.scanOnce());

    done(loop.stop());
    loop.scan();
    loop.renewOnce();

    assertThat(loop.stopping()).isTrue();
    assertThat(leases.released).containsExactlyInAnyOrder(0, 2);
    assertThat(worked).hasSize(1);
    assertThat(leases.renewals).isEmpty();
  }

  @Test
  void stopNeverFailsWhenTheRowsCannotBeRead() {
    ShardLeaseLoop<LeasePlanner.Shard> unreadable =
        new ShardLeaseLoop<>(
            "test",
            new ShardLeaseLoop.Table<>(
                Future::succeededFuture,
                () -> Future.failedFuture(new IllegalStateException("store away")),
                s -> s),
            leases,
            () -> now,
            mine -> Future.succeededFuture());

    done(unreadable.stop());

    assertThat(leases.released).isEmpty();
  }

  private static TreeMap<Integer, String> owners(String... byShard) {
    TreeMap<Integer, String> m = new TreeMap<>();
    IntStream.range(0, byShard.length).forEach(i -> m.put(i, byShard[i]));
    return m;
  }
}
