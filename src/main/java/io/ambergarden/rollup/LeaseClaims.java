package io.ambergarden.rollup;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a {@link LeasePlanner.Plan} with lightweight transactions: renews and acquires what
 * it says (each only if the row is still as read), releases the rest. Shared by every leased scan
 * (rollup shards, media sweep shards), whose lease tables have the same shape.
 */
public final class LeaseClaims {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseClaims.class);

  private LeaseClaims() {}

  /**
   * Completes with the shards this instance holds now. {@code renew} is {@code UPDATE .. SET
   * lease_until = ? WHERE shard = ? IF owner = ?} (also the release, with the epoch); {@code
   * acquire} is {@code UPDATE .. SET owner = ?, lease_until = ? WHERE shard = ? IF lease_until =
   * ?}.
   */
  public static Future<List<LeasePlanner.Shard>> claim(
      CassandraClient client,
      LeasePlanner.Plan plan,
      String instanceId,
      Instant leaseUntil,
      PreparedStatement renew,
      PreparedStatement acquire) {
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
      // best effort: an unreleased lease simply runs out
      client.execute(renew.bind(Instant.EPOCH, s.shard(), instanceId));
    }
    // a claim of unknown outcome (a contended or timed-out LWT) counts as not held for this scan:
    // the other shards are still processed, and the next scan finds out who owns it
    List<Future<LeasePlanner.Shard>> settled =
        owned.stream()
            .map(
                f ->
                    f.otherwise(
                        err -> {
                          LOG.debug("lease claim of unknown outcome: {}", err.toString());
                          return null;
                        }))
            .toList();
    return Future.join(settled)
        .map(cf -> settled.stream().map(Future::result).filter(Objects::nonNull).toList());
  }

  private static Future<Boolean> applied(Future<ResultSet> rs) {
    return rs.map(ResultSet::wasApplied);
  }
}
