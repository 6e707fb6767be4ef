package io.ambergarden.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The shard leases this instance holds, as fencing windows for the leased work's writes (the
 * rollups stamp their rows and exact counts with them). No Vert.x, no CQL.
 *
 * <p>A claim of a shard covers the write timestamps {@code [floor, leaseUntil)} in milliseconds,
 * where {@code floor} is the lease_until it took over (its acquire was conditional on exactly that
 * value) and {@code leaseUntil} only grows while the claim lasts (each renewal is conditional on
 * the owner and the lease_until it last wrote). An owner stamps a recompute's rollup writes with
 * {@code USING TIMESTAMP} taken when the recompute starts reading detail, and starts none once its
 * own clock has passed leaseUntil. So every stamp of a claim lies below its final lease_until, and
 * every stamp of the next claim at or above it, whatever the clocks of the two instances say: under
 * Cassandra's last-write-wins the newer claim's rollup wins, whichever write arrives last.
 */
public final class ShardTerms {
  public record Term(int shard, long floor, long leaseUntil) {}

  private final long ttlMillis;
  private final TreeMap<Integer, Term> held = new TreeMap<>();
  private long lastStamp;

  public ShardTerms(Duration leaseTtl) {
    this.ttlMillis = leaseTtl.toMillis();
  }

  long ttlMillis() {
    return ttlMillis;
  }

  /** The lease_until to write when acquiring a lease that reads {@code current}. */
  long acquireUntil(long now, long current) {
    return Math.max(now, current) + ttlMillis;
  }

  /** The lease_until to write when renewing a term: never below what it was. */
  long renewUntil(long now, Term t) {
    return Math.max(now + ttlMillis, t.leaseUntil());
  }

  void acquired(int shard, long tookOver, long leaseUntil) {
    held.put(shard, new Term(shard, tookOver, leaseUntil));
  }

  /**
   * A renewal applied. A term this instance did not know of (renewed at the start of a scan) takes
   * its previous lease_until as floor: no earlier owner's stamp reaches it.
   */
  void renewed(int shard, long previousUntil, long leaseUntil) {
    Term t = held.get(shard);
    long floor = t == null ? previousUntil : t.floor();
    held.put(shard, new Term(shard, floor, leaseUntil));
  }

  /** Lost, given back, or its renewal found another owner. */
  void dropped(int shard) {
    held.remove(shard);
  }

  public Term term(int shard) {
    return held.get(shard);
  }

  /** Whether the shard is held and its lease has not run out by this instance's clock. */
  public boolean holds(int shard, long now) {
    Term t = held.get(shard);
    return t != null && now < t.leaseUntil();
  }

  /**
   * Terms to renew now: held, not run out, and a third of the TTL used since their last renewal.
   * Renewing this early leaves two renewal attempts before the lease runs out.
   */
  List<Term> dueForRenewal(long now) {
    List<Term> out = new ArrayList<>();
    for (Term t : held.values()) {
      if (now < t.leaseUntil() && t.leaseUntil() - now <= ttlMillis * 2 / 3) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * The write timestamp (microseconds) of a recompute of the shard starting at {@code nowMillis}:
   * inside the term's window and above every stamp given before, or empty when the shard is not
   * held or its window is used up.
   */
  public OptionalLong stamp(int shard, long nowMillis) {
    Term t = held.get(shard);
    if (t == null || nowMillis >= t.leaseUntil()) {
      return OptionalLong.empty();
    }
    long stamp = Math.max(Math.max(nowMillis * 1000, t.floor() * 1000), lastStamp + 1);
    if (stamp >= t.leaseUntil() * 1000) {
      return OptionalLong.empty();
    }
    lastStamp = stamp;
    return OptionalLong.of(stamp);
  }
}
