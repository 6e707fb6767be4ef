package io.ambergarden.lease;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unfenced leases (the media sweeper's): carries out a {@link LeasePlanner.Plan} with lightweight
 * transactions, renewing and acquiring what it says (each only if the row is still as read) and
 * releasing the rest. A lease lasts the TTL from its scan's claim and is renewed by the next scan's
 * claim (the TTL is at least twice the scan interval); nothing is renewed during a scan.
 */
public final class LeaseClaims implements Leases {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseClaims.class);

  private final CassandraClient client;
  private final String instanceId;
  private final long ttlMillis;
  private final PreparedStatement acquire;
  private final PreparedStatement renew;

  /**
   * {@code acquire} is {@code UPDATE .. SET owner = ?, lease_until = ? WHERE shard = ? IF
   * lease_until = ?}; {@code renew} is {@code UPDATE .. SET lease_until = ? WHERE shard = ? IF
   * owner = ?}, also the release (with the epoch).
   */
  public LeaseClaims(
      CassandraClient client,
      String instanceId,
      Duration ttl,
      PreparedStatement acquire,
      PreparedStatement renew) {
    this.client = client;
    this.instanceId = instanceId;
    this.ttlMillis = ttl.toMillis();
    this.acquire = acquire;
    this.renew = renew;
  }

  @Override
  public String owner() {
    return instanceId;
  }

  @Override
  public Future<List<LeasePlanner.Shard>> claim(List<LeasePlanner.Shard> rows, long now) {
    LeasePlanner.Plan plan = LeasePlanner.plan(rows, instanceId, now);
    Instant leaseUntil = Instant.ofEpochMilli(now + ttlMillis);
    List<Future<LeasePlanner.Shard>> owned = new ArrayList<>();
    for (LeasePlanner.Shard s : plan.renew()) {
      owned.add(
          applied(client.execute(renew.bind(leaseUntil, s.shard(), instanceId)))
              .map(ok -> ok ? s : null));
    }
    for (LeasePlanner.Shard s : plan.acquire()) {
      owned.add(
          applied(
                  client.execute(
                      acquire.bind(
                          instanceId, leaseUntil, s.shard(), Instant.ofEpochMilli(s.leaseUntil()))))
              .map(ok -> ok ? s : null));
    }
    for (LeasePlanner.Shard s : plan.release()) {
      release(s.shard());
    }
    return held(owned, "lease claim");
  }

  /**
   * The shards whose claims succeeded. A claim of unknown outcome (a contended or timed-out LWT)
   * counts as not held for this scan: the other shards are still processed, and the next scan reads
   * who owns it.
   */
  static Future<List<LeasePlanner.Shard>> held(
      List<Future<LeasePlanner.Shard>> claims, String kind) {
    List<Future<LeasePlanner.Shard>> settled =
        claims.stream()
            .map(
                f ->
                    f.otherwise(
                        err -> {
                          LOG.debug("{} of unknown outcome: {}", kind, err.toString());
                          return null;
                        }))
            .toList();
    return Future.join(settled)
        .map(cf -> settled.stream().map(Future::result).filter(Objects::nonNull).toList());
  }

  /** Nothing is due between claims: the next scan's claim renews. */
  @Override
  public Future<Void> renewDue(long now) {
    return Future.succeededFuture();
  }

  /** Sets lease_until to the epoch if this instance still owns the shard. */
  @Override
  public Future<Void> release(int shard) {
    return client
        .execute(renew.bind(Instant.EPOCH, shard, instanceId))
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }

  @Override
  public Optional<Duration> renewalTick() {
    return Optional.empty();
  }

  private static Future<Boolean> applied(Future<ResultSet> rs) {
    return rs.map(ResultSet::wasApplied);
  }
}
