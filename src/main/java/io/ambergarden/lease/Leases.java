package io.ambergarden.lease;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How a leased scan takes, keeps and gives back its shard leases, all with lightweight
 * transactions. Two protocols exist because the two lease tables' CQL differs: {@link ShardLeases}
 * fences the work's writes ({@link ShardTerms}) and renews during a scan; {@link LeaseClaims} is
 * renewed by the next scan's claim only.
 */
public interface Leases {
  /** The owner this instance writes into the lease rows. */
  String owner();

  /**
   * Carries out the fair-share plan ({@link LeasePlanner}) on the rows read at {@code now};
   * completes with the shards held now. A claim of unknown outcome counts as not held.
   */
  Future<List<LeasePlanner.Shard>> claim(List<LeasePlanner.Shard> rows, long now);

  /** Renews the held leases that are due at {@code now}; never fails. */
  Future<Void> renewDue(long now);

  /** Gives a lease back, best effort: an unreleased lease simply runs out. Never fails. */
  Future<Void> release(int shard);

  /** How often {@link #renewDue} runs while a scan holds leases; empty for never. */
  Optional<Duration> renewalTick();
}
