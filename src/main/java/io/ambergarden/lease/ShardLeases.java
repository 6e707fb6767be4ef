package io.ambergarden.lease;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fenced leases (the rollups'): claims, renews and gives back shard leases with lightweight
 * transactions, keeping {@link ShardTerms} in step: an acquire is conditional on the lease_until it
 * read, a renewal on the owner and the lease_until it last wrote, so lease_until only grows and
 * each claim's fencing window starts where the previous one ended. Giving a lease back clears the
 * owner and keeps lease_until, the floor of the next claim.
 */
public final class ShardLeases implements Leases {
  private static final Logger LOG = LoggerFactory.getLogger(ShardLeases.class);

  /**
   * The lease table's fenced LWTs. {@code acquire}: {@code SET owner = ?, lease_until = ? WHERE
   * shard = ? IF lease_until = ?}; {@code renew}: {@code SET lease_until = ? WHERE shard = ? IF
   * owner = ? AND lease_until = ?}; {@code release}: {@code SET owner = '' WHERE shard = ? IF owner
   * = ?}.
   */
  public record Statements(
      PreparedStatement acquire, PreparedStatement renew, PreparedStatement release) {}

  private final CassandraClient client;
  private final Statements cql;
  private final String instanceId;
  private final ShardTerms terms;

  public ShardLeases(CassandraClient client, Statements cql, String instanceId, ShardTerms terms) {
    this.client = client;
    this.cql = cql;
    this.instanceId = instanceId;
    this.terms = terms;
  }

  @Override
  public String owner() {
    return instanceId;
  }

  /** A sixth of the TTL: a term comes due after a third, so two tries before it runs out. */
  @Override
  public Optional<Duration> renewalTick() {
    return Optional.of(Duration.ofMillis(Math.max(100, terms.ttlMillis() / 6)));
  }

  @Override
  public Future<List<LeasePlanner.Shard>> claim(List<LeasePlanner.Shard> rows, long now) {
    LeasePlanner.Plan plan = LeasePlanner.plan(rows, instanceId, now);
    List<Future<LeasePlanner.Shard>> owned = new ArrayList<>();
    for (LeasePlanner.Shard s : plan.renew()) {
      ShardTerms.Term known = terms.term(s.shard());
      ShardTerms.Term t =
          known != null ? known : new ShardTerms.Term(s.shard(), s.leaseUntil(), s.leaseUntil());
      long until = terms.renewUntil(now, new ShardTerms.Term(s.shard(), t.floor(), s.leaseUntil()));
      owned.add(
          applied(
                  cql.renew()
                      .bind(
                          Instant.ofEpochMilli(until),
                          s.shard(),
                          instanceId,
                          Instant.ofEpochMilli(s.leaseUntil())))
              .map(
                  ok -> {
                    if (!ok) {
                      terms.dropped(s.shard());
                      return null;
                    }
                    terms.renewed(s.shard(), s.leaseUntil(), until);
                    return s;
                  }));
    }
    for (LeasePlanner.Shard s : plan.acquire()) {
      long until = terms.acquireUntil(now, s.leaseUntil());
      owned.add(
          applied(
                  cql.acquire()
                      .bind(
                          instanceId,
                          Instant.ofEpochMilli(until),
                          s.shard(),
                          Instant.ofEpochMilli(s.leaseUntil())))
              .map(
                  ok -> {
                    if (!ok) {
                      return null;
                    }
                    terms.acquired(s.shard(), s.leaseUntil(), until);
                    return s;
                  }));
    }
    for (LeasePlanner.Shard s : plan.release()) {
      release(s.shard());
    }
    return LeaseClaims.held(owned, "fenced lease claim")
        .map(
            mine -> {
              Set<Integer> ids = new HashSet<>();
              mine.forEach(s -> ids.add(s.shard()));
              for (LeasePlanner.Shard s : rows) {
                if (!ids.contains(s.shard())) {
                  terms.dropped(s.shard());
                }
              }
              return mine;
            });
  }

  /**
   * Renews the terms that are due. A renewal that finds another owner drops the term; one of
   * unknown outcome keeps the term as it was (its window cannot grow until a renewal is known).
   */
  @Override
  public Future<Void> renewDue(long now) {
    List<Future<?>> renewals = new ArrayList<>();
    for (ShardTerms.Term t : terms.dueForRenewal(now)) {
      long until = terms.renewUntil(now, t);
      renewals.add(
          applied(
                  cql.renew()
                      .bind(
                          Instant.ofEpochMilli(until),
                          t.shard(),
                          instanceId,
                          Instant.ofEpochMilli(t.leaseUntil())))
              .onSuccess(
                  ok -> {
                    if (ok) {
                      terms.renewed(t.shard(), t.leaseUntil(), until);
                    } else {
                      LOG.info("leased shard {} was taken over; its scan stops", t.shard());
                      terms.dropped(t.shard());
                    }
                  }));
    }
    return Future.join(renewals).<Void>mapEmpty().otherwiseEmpty();
  }

  /** Clears the owner, keeps lease_until (best effort: an unreleased lease simply runs out). */
  @Override
  public Future<Void> release(int shard) {
    terms.dropped(shard);
    return client.execute(cql.release().bind(shard, instanceId)).<Void>mapEmpty().otherwiseEmpty();
  }

  private Future<Boolean> applied(Statement<?> s) {
    return client.execute(s).map(ResultSet::wasApplied);
  }
}
