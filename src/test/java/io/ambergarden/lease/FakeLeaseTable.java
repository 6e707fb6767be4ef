package io.ambergarden.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A lease table with the exact conditions of {@link LeaseClaims}' lightweight transactions: acquire
 * {@code IF lease_until = <as read>}, renew and release {@code IF owner = <me>}, release setting
 * lease_until to the epoch. Each scan reads the table, plans, then applies the plan.
 */
final class FakeLeaseTable {
  private final Map<Integer, LeasePlanner.Shard> rows = new TreeMap<>();
  private final long ttl;

  FakeLeaseTable(int shards, long ttl) {
    this.ttl = ttl;
    for (int s = 0; s < shards; s++) {
      rows.put(s, new LeasePlanner.Shard(s, "", 0L, 0L)); // as created: owner '', lease_until EPOCH
    }
  }

  List<LeasePlanner.Shard> read() {
    return new ArrayList<>(rows.values());
  }

  /** One scan of instance {@code me} at {@code now}: read, plan, apply. */
  void scan(String me, long now) {
    apply(me, now, LeasePlanner.plan(read(), me, now));
  }

  /** Applies a plan made from an earlier read; returns the shards the instance holds afterwards. */
  List<Integer> apply(String me, long now, LeasePlanner.Plan plan) {
    List<Integer> owned = new ArrayList<>();
    for (LeasePlanner.Shard s : plan.renew()) {
      LeasePlanner.Shard row = rows.get(s.shard());
      if (me.equals(row.owner())) {
        rows.put(s.shard(), new LeasePlanner.Shard(s.shard(), me, now + ttl, row.doneUntil()));
        owned.add(s.shard());
      }
    }
    for (LeasePlanner.Shard s : plan.acquire()) {
      LeasePlanner.Shard row = rows.get(s.shard());
      if (row.leaseUntil() == s.leaseUntil()) {
        rows.put(s.shard(), new LeasePlanner.Shard(s.shard(), me, now + ttl, row.doneUntil()));
        owned.add(s.shard());
      }
    }
    for (LeasePlanner.Shard s : plan.release()) {
      LeasePlanner.Shard row = rows.get(s.shard());
      if (me.equals(row.owner())) {
        rows.put(s.shard(), new LeasePlanner.Shard(s.shard(), me, 0L, row.doneUntil()));
      }
    }
    return owned;
  }

  /** What a leased scan's stop does: gives back every lease it owns. */
  void stop(String me) {
    rows.values().stream()
        .filter(r -> me.equals(r.owner()))
        .toList()
        .forEach(
            r -> rows.put(r.shard(), new LeasePlanner.Shard(r.shard(), me, 0L, r.doneUntil())));
  }

  /** Sets a row as if written by another instance. */
  void put(int shard, String owner, long leaseUntil) {
    rows.put(shard, new LeasePlanner.Shard(shard, owner, leaseUntil, 0L));
  }

  /** Live owner per shard, null when free. */
  Map<Integer, String> owners(long now) {
    Map<Integer, String> m = new TreeMap<>();
    rows.values().forEach(r -> m.put(r.shard(), r.live(now) ? r.owner() : null));
    return m;
  }

  /** Live shards held by {@code owner}. */
  long count(String owner, long now) {
    return rows.values().stream().filter(r -> r.live(now) && owner.equals(r.owner())).count();
  }
}
