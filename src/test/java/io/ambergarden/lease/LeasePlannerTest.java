package io.ambergarden.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.lease.LeasePlanner.Plan;
import io.ambergarden.lease.LeasePlanner.Shard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LeasePlannerTest {
  private static final long NOW = 1_750_000_000_000L;
  private static final long TTL = 30_000L;
  private static final long SCAN = 5_000L;
  private static final String A = "rollup-a";
  private static final String B = "rollup-b";
  private static final String C = "rollup-c";

  private static List<Shard> fresh(int n) {
    return IntStream.range(0, n).mapToObj(s -> new Shard(s, "", 0L, 0L)).toList();
  }

  private static Shard held(int shard, String owner, long leaseUntil) {
    return new Shard(shard, owner, leaseUntil, 0L);
  }

  private static List<Integer> ids(List<Shard> shards) {
    return shards.stream().map(Shard::shard).toList();
  }

  private static List<Integer> rotation(int start, int n) {
    return IntStream.range(0, n).map(i -> (start + i) % n).boxed().toList();
  }

  @Test
  void aSingleInstanceTakesEveryShardOfAFreshTable() {
    Plan p = LeasePlanner.plan(fresh(16), A, NOW);

    assertThat(p.renew()).isEmpty();
    assertThat(p.release()).isEmpty();
    assertThat(ids(p.acquire()))
        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 16).boxed().toList());
    // acquired as read, so the conditional update (IF lease_until = <as read>) matches
    assertThat(p.acquire()).containsExactlyInAnyOrderElementsOf(fresh(16));
  }

  @Test
  void aSingleInstanceHoldingEveryShardRenewsThemAll() {
    List<Shard> table = IntStream.range(0, 8).mapToObj(s -> held(s, A, NOW + 1)).toList();
    Plan p = LeasePlanner.plan(table, A, NOW);

    assertThat(ids(p.renew())).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(p.acquire()).isEmpty();
    assertThat(p.release()).isEmpty();
  }

  @Test
  void expiredLeasesAreFreeAndTheirOwnersNotCounted() {
    // B's leases ended exactly now (live means lease_until > now) or earlier
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 6; s++) {
      table.add(held(s, B, s % 2 == 0 ? NOW : NOW - 60_000));
    }
    Plan p = LeasePlanner.plan(table, A, NOW);

    assertThat(ids(p.acquire()))
        .as("B is gone, so A's share is everything")
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    assertThat(p.acquire()).containsExactlyInAnyOrderElementsOf(table);
  }

  @Test
  void expiredLeasesNextToLiveOnesAreTakenUpToTheShare() {
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      table.add(held(s, B, s < 4 ? NOW + 10_000 : NOW - 1));
    }
    Plan p = LeasePlanner.plan(table, A, NOW);

    assertThat(ids(p.acquire())).containsExactlyInAnyOrder(4, 5, 6, 7);
    assertThat(p.renew()).isEmpty();
  }

  @Test
  void anOwnExpiredLeaseIsTakenAgainNotRenewed() {
    // renewing is conditional on the owner only; an expired lease must go through the lease_until
    // condition
    List<Shard> table = List.of(held(0, A, NOW + 5_000), held(1, A, NOW - 5_000));
    Plan p = LeasePlanner.plan(table, A, NOW);

    assertThat(ids(p.renew())).containsExactly(0);
    assertThat(p.acquire()).containsExactly(held(1, A, NOW - 5_000));
  }

  @Test
  void anInstanceHoldingTooManyReleasesTheExcessKeepingItsLowestShards() {
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      table.add(held(s, s < 6 ? A : B, NOW + 10_000));
    }
    Plan a = LeasePlanner.plan(table, A, NOW);
    assertThat(ids(a.renew())).containsExactly(0, 1, 2, 3);
    assertThat(ids(a.release())).containsExactly(4, 5);
    assertThat(a.acquire()).isEmpty();

    Plan b = LeasePlanner.plan(table, B, NOW);
    assertThat(ids(b.renew())).containsExactly(6, 7);
    assertThat(b.acquire()).as("B wants 4 but nothing is free; A gives two back").isEmpty();
    assertThat(b.release()).isEmpty();
  }

  @Test
  void withThreeOwnersTheBigOneReleasesDownToItsShare() {
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 9; s++) {
      table.add(held(s, s == 3 ? B : s == 8 ? C : A, NOW + 10_000));
    }
    Plan a = LeasePlanner.plan(table, A, NOW);
    assertThat(ids(a.renew())).containsExactly(0, 1, 2);
    assertThat(ids(a.release())).containsExactly(4, 5, 6, 7);
  }

  /**
   * Instances with the same view agree on the shares: each is n/k or n/k + 1 and they add up to n,
   * so no shard is left over and none is wanted twice.
   */
  @Test
  void sharesAreExactAndAddUpToTheShards() {
    for (int n = 1; n <= 24; n++) {
      for (int k = 1; k <= Math.min(n, 6); k++) {
        List<String> instances =
            IntStream.range(0, k).mapToObj(i -> "inst-" + (char) ('a' + i)).toList();
        // each instance holds one shard, the rest are free
        List<Shard> table = new ArrayList<>();
        for (int s = 0; s < n; s++) {
          table.add(s < k ? held(s, instances.get(s), NOW + 1_000) : new Shard(s, "", 0L, 0L));
        }
        int total = 0;
        for (String me : instances) {
          Plan p = LeasePlanner.plan(table, me, NOW);
          int share = p.renew().size() + p.acquire().size();
          assertThat(p.release()).isEmpty();
          assertThat(share)
              .as("n=%d k=%d %s", n, k, me)
              .isBetween(n / k, n / k + (n % k == 0 ? 0 : 1));
          total += share;
        }
        assertThat(total).as("n=%d k=%d", n, k).isEqualTo(n);
      }
    }
  }

  @Test
  void theSearchForFreeShardsStartsAtAnInstanceSpecificOffset() {
    int n = 16;
    int offA = Math.floorMod(A.hashCode(), n);
    int offB = Math.floorMod(B.hashCode(), n);
    assertThat(offA).as("test precondition").isNotEqualTo(offB);

    assertThat(ids(LeasePlanner.plan(fresh(n), A, NOW).acquire()))
        .containsExactlyElementsOf(rotation(offA, n));
    assertThat(ids(LeasePlanner.plan(fresh(n), B, NOW).acquire()))
        .containsExactlyElementsOf(rotation(offB, n));

    // with a share of half, the two instances go for different shards first
    List<Shard> table = new ArrayList<>(fresh(n));
    table.set(offA, held(offA, A, NOW + 1_000)); // A is known, so B's share is 8
    table.set((offB + 8) % n, held((offB + 8) % n, B, NOW + 1_000));
    List<Integer> bWants = ids(LeasePlanner.plan(table, B, NOW).acquire());
    assertThat(bWants).hasSize(7).doesNotContain(offA).startsWith(offB);
  }

  @Test
  void anInstanceWithoutLeasesTakesOneShardFromTheOwnerMostOverItsShare() {
    List<Shard> table = IntStream.range(0, 6).mapToObj(s -> held(s, A, NOW + 10_000 + s)).toList();
    Plan b = LeasePlanner.plan(table, B, NOW);

    // A does not know B and renews all six, so B could never get a share by waiting for free shards
    assertThat(ids(LeasePlanner.plan(table, A, NOW).renew())).hasSize(6);
    assertThat(b.acquire())
        .as("A's highest shard, as read")
        .containsExactly(held(5, A, NOW + 10_005));
    assertThat(b.renew()).isEmpty();
    assertThat(b.release()).isEmpty();
  }

  @Test
  void theStolenShardComesFromTheOwnerFurthestOverItsShare() {
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 9; s++) {
      table.add(held(s, s < 2 ? A : B, NOW + 10_000)); // A 2, B 7
    }
    assertThat(ids(LeasePlanner.plan(table, C, NOW).acquire())).containsExactly(8);
  }

  @Test
  void anInstanceWhoseShareIsZeroTakesNothing() {
    // two shards, three instances: c's share is 0 (a and b sort first)
    List<Shard> table = List.of(held(0, A, NOW + 1_000), held(1, B, NOW + 1_000));
    Plan c = LeasePlanner.plan(table, C, NOW);
    assertThat(c.acquire()).isEmpty();
    assertThat(c.renew()).isEmpty();
  }

  @Test
  void anInstanceHoldingSomeLeasesNeverTakesALiveOne() {
    List<Shard> table = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      table.add(held(s, s == 0 ? B : A, NOW + 10_000));
    }
    Plan b = LeasePlanner.plan(table, B, NOW);
    assertThat(ids(b.renew())).containsExactly(0);
    assertThat(b.acquire()).as("A is known to be over and gives back itself").isEmpty();
  }

  @Test
  void noShardsNoPlan() {
    Plan p = LeasePlanner.plan(List.of(), A, NOW);
    assertThat(p.renew()).isEmpty();
    assertThat(p.acquire()).isEmpty();
    assertThat(p.release()).isEmpty();
  }

  // ---- simulations against a lease table with the verticle's conditional updates

  private enum Mode {
    SEQUENTIAL,
    SEQUENTIAL_REVERSED,
    LOCKSTEP_ALTERNATING,
    RANDOM_ORDER
  }

  /**
   * Runs rounds of scans, one scan per instance per round; returns the time after the last round.
   */
  private static long rounds(
      FakeLeaseTable t, List<String> instances, long now, int rounds, Mode mode, Random rnd) {
    for (int r = 0; r < rounds; r++, now += SCAN) {
      List<String> order = new ArrayList<>(instances);
      switch (mode) {
        case SEQUENTIAL -> {}
        case SEQUENTIAL_REVERSED -> Collections.reverse(order);
        case LOCKSTEP_ALTERNATING -> {
          if (r % 2 == 1) {
            Collections.reverse(order);
          }
        }
        case RANDOM_ORDER -> Collections.shuffle(order, rnd);
      }
      if (mode == Mode.LOCKSTEP_ALTERNATING) {
        // every instance plans from the same read, then they apply one after the other
        List<Shard> read = t.read();
        Map<String, Plan> plans = new HashMap<>();
        for (String me : order) {
          plans.put(me, LeasePlanner.plan(read, me, now));
        }
        for (String me : order) {
          t.apply(me, now, plans.get(me));
        }
      } else {
        long at = now;
        for (String me : order) {
          t.scan(me, at);
          at += 1 + (mode == Mode.RANDOM_ORDER ? rnd.nextInt((int) SCAN / instances.size()) : 100);
        }
      }
    }
    return now;
  }

  private static void assertFairSplit(
      FakeLeaseTable t, List<String> instances, long now, String what) {
    Map<Integer, String> owners = t.owners(now);
    assertThat(owners.values())
        .as("%s: every shard has a live owner among %s: %s", what, instances, owners)
        .allMatch(instances::contains);
    List<Long> counts = instances.stream().map(i -> t.count(i, now)).toList();
    long max = Collections.max(counts);
    long min = Collections.min(counts);
    assertThat(max - min).as("%s: counts %s of %s", what, counts, owners).isLessThanOrEqualTo(1);
  }

  /** Another few rounds change no owner: the split is stable, nothing flaps. */
  private static void assertStable(
      FakeLeaseTable t, List<String> instances, long now, Mode mode, Random rnd, String what) {
    Map<Integer, String> before = t.owners(now);
    long later = rounds(t, instances, now, 5, mode, rnd);
    assertThat(t.owners(later)).as("%s: stable", what).isEqualTo(before);
  }

  @Test
  void twoInstancesStartingTogetherConvergeToAFairSplit() {
    Random rnd = new Random(3);
    for (Mode mode : Mode.values()) {
      for (int n = 1; n <= 20; n++) {
        FakeLeaseTable t = new FakeLeaseTable(n, TTL);
        List<String> both = List.of(A, B);
        long now = rounds(t, both, NOW, 6, mode, rnd);
        String what = mode + " n=" + n;
        assertFairSplit(t, both, now, what);
        assertStable(t, both, now, mode, rnd, what);
      }
    }
  }

  @Test
  void aSecondInstanceJoiningLaterGetsItsShare() {
    Random rnd = new Random(5);
    for (Mode mode : Mode.values()) {
      for (int n = 1; n <= 20; n++) {
        FakeLeaseTable t = new FakeLeaseTable(n, TTL);
        long now = rounds(t, List.of(A), NOW, 3, mode, rnd);
        assertThat(t.count(A, now)).isEqualTo(n);
        // whichever name sorts first, the newcomer must get in
        for (String newcomer : List.of(B, "rollup-0")) {
          FakeLeaseTable u = copyOf(t, n, now);
          List<String> both = List.of(A, newcomer);
          long then = rounds(u, both, now, 6, mode, rnd);
          String what = mode + " n=" + n + " newcomer " + newcomer;
          assertFairSplit(u, both, then, what);
          assertStable(u, both, then, mode, rnd, what);
        }
      }
    }
  }

  private static FakeLeaseTable copyOf(FakeLeaseTable t, int n, long now) {
    FakeLeaseTable u = new FakeLeaseTable(n, TTL);
    t.read().forEach(s -> u.put(s.shard(), s.owner(), s.leaseUntil()));
    return u;
  }

  @Test
  void whenOneOfTwoStopsTheOtherTakesEverythingAtTheNextScan() {
    FakeLeaseTable t = new FakeLeaseTable(16, TTL);
    long now = rounds(t, List.of(A, B), NOW, 6, Mode.SEQUENTIAL, new Random(1));
    assertFairSplit(t, List.of(A, B), now, "before");

    t.stop(B);
    t.scan(A, now);
    assertThat(t.count(A, now)).isEqualTo(16);
  }

  @Test
  void whenOneOfTwoDiesTheOtherTakesEverythingOnceItsLeasesExpire() {
    FakeLeaseTable t = new FakeLeaseTable(16, TTL);
    long now = rounds(t, List.of(A, B), NOW, 6, Mode.SEQUENTIAL, new Random(1));
    long bLast = now - SCAN + 101; // B's last scan in the last round
    assertThat(t.count(B, now)).isEqualTo(8);

    // B stops scanning without giving its leases back; A keeps scanning
    long expiry = bLast + TTL;
    for (; now < expiry; now += SCAN) {
      t.scan(A, now);
      assertThat(t.count(A, now)).as("B's leases are live until they expire").isEqualTo(8);
    }
    t.scan(A, now);
    assertThat(t.count(A, now)).isEqualTo(16);
  }

  @Test
  void threeToFiveInstancesAlsoConvergeToAFairSplit() {
    Random rnd = new Random(9);
    for (int k = 3; k <= 5; k++) {
      List<String> instances = IntStream.range(0, k).mapToObj(i -> "node-" + i).toList();
      for (Mode mode : List.of(Mode.SEQUENTIAL, Mode.RANDOM_ORDER, Mode.LOCKSTEP_ALTERNATING)) {
        for (int n = k; n <= 24; n++) {
          // start one at a time, the hardest case: everyone else must get in past a full table
          FakeLeaseTable t = new FakeLeaseTable(n, TTL);
          long now = NOW;
          for (int j = 1; j <= k; j++) {
            now = rounds(t, instances.subList(0, j), now, 4, mode, rnd);
          }
          now = rounds(t, instances, now, 6, mode, rnd);
          String what = mode + " k=" + k + " n=" + n;
          assertFairSplit(t, instances, now, what);
          assertStable(t, instances, now, mode, rnd, what);
        }
      }
    }
  }

  /**
   * Random scan orders, with instances stopping, dying and coming back: whenever membership then
   * stays the same for a while, the split is fair again and stays so.
   */
  @Test
  void membershipChangesAlwaysSettleIntoAFairSplit() {
    Random rnd = new Random(21);
    List<String> all = List.of(A, B, C, "rollup-d");
    for (int trial = 0; trial < 40; trial++) {
      int n = 1 + rnd.nextInt(20);
      FakeLeaseTable t = new FakeLeaseTable(n, TTL);
      Set<String> up = new HashSet<>(List.of(A));
      long now = NOW;
      for (int change = 0; change < 6; change++) {
        now = rounds(t, List.copyOf(up), now, 1 + rnd.nextInt(4), Mode.RANDOM_ORDER, rnd);
        String who = all.get(rnd.nextInt(all.size()));
        if (!up.remove(who)) {
          up.add(who);
        } else if (rnd.nextBoolean()) {
          t.stop(who); // a clean stop gives the leases back; otherwise it died
        }
        if (up.isEmpty()) {
          up.add(A);
        }
      }
      // settle: long enough for dead instances' leases to expire, then a few more scans
      List<String> members = List.copyOf(up);
      now = rounds(t, members, now, (int) (TTL / SCAN) + 8, Mode.RANDOM_ORDER, rnd);
      String what = "trial " + trial + " n=" + n + " " + members;
      if (n >= members.size()) {
        assertFairSplit(t, members, now, what);
      } else {
        // fewer shards than instances: every shard has a live member as owner, nobody holds two
        long settled = now;
        assertThat(t.owners(now).values()).as(what).allMatch(members::contains);
        assertThat(members).as(what).allMatch(m -> t.count(m, settled) <= 1);
      }
      assertStable(t, members, now, Mode.RANDOM_ORDER, rnd, what);
    }
  }
}
