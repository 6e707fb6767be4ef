package io.ambergarden.auth;

import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.CassandraClients;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * API keys and tickets in Cassandra. Statements are prepared on first use (and again after a
 * failure), so the service starts while Cassandra is still coming up.
 */
public final class KeyStore {
  private final CassandraClient client;
  private final String keyspace;
  private Future<AccessStatements> statements;

  /** A page of keys, and where the next one starts (null at the end). */
  public record Page(List<KeyRecord> keys, Long next) {}

  public KeyStore(CassandraClient client, String keyspace) {
    this.client = client;
    this.keyspace = keyspace;
  }

  synchronized Future<AccessStatements> statements() {
    if (client == null) {
      return Future.failedFuture("no Cassandra client: API keys cannot be read");
    }
    if (statements == null || statements.failed()) {
      statements = AccessStatements.prepare(client, keyspace);
    }
    return statements;
  }

  /** Stores a new key; fails if the id exists (a 2^-64 chance). */
  public Future<Void> create(KeyRecord k) {
    return statements()
        .compose(
            s ->
                client.execute(
                    s.insertKey()
                        .bind(
                            k.id(),
                            k.name(),
                            ByteBuffer.wrap(k.hash()),
                            scopeTexts(k.scopes()),
                            k.devices(),
                            k.ratePerSecond(),
                            k.createdAt(),
                            k.createdBy(),
                            k.revokedAt())
                        .setIdempotent(false)))
        .compose(
            rs ->
                rs.wasApplied()
                    ? Future.succeededFuture()
                    : Future.failedFuture("key id " + k.id() + " exists"));
  }

  public Future<Optional<KeyRecord>> find(String id) {
    return statements()
        .compose(s -> client.execute(read(s.keyById().bind(id))))
        .map(rs -> Optional.ofNullable(rs.one()).map(KeyStore::key));
  }

  /** Keys in token order after {@code afterToken} (null: from the start). */
  public Future<Page> list(Long afterToken, int limit) {
    return statements()
        .compose(
            s ->
                client.executeWithFullFetch(
                    read(
                        s.listKeys()
                            .bind(afterToken == null ? Long.MIN_VALUE : afterToken, limit))))
        .map(
            rows -> {
              List<KeyRecord> keys = new ArrayList<>();
              Long last = null;
              for (Row r : rows) {
                keys.add(key(r));
                last = r.getLong(9);
              }
              return new Page(keys, rows.size() < limit ? null : last);
            });
  }

  /** Marks the key revoked; false if there is no such key. */
  public Future<Boolean> revoke(String id, Instant at) {
    return statements()
        .compose(s -> client.execute(s.revokeKey().bind(at, id).setIdempotent(true)))
        .map(rs -> rs.wasApplied());
  }

  Future<Void> insertTicket(byte[] hash, Principal p, int ttlSeconds) {
    return statements()
        .compose(
            s ->
                client.execute(
                    s.insertTicket()
                        .bind(
                            ByteBuffer.wrap(hash),
                            p.id(),
                            p.kind().name(),
                            p.name(),
                            scopeTexts(p.scopes()),
                            p.devices().patterns(),
                            p.ratePerSecond(),
                            p.expiresAtMillis(),
                            ttlSeconds)
                        .setIdempotent(true)))
        .mapEmpty();
  }

  /** The ticket's principal, if the ticket exists and this call is the one that deleted it. */
  Future<Optional<Principal>> redeemTicket(byte[] hash) {
    ByteBuffer h = ByteBuffer.wrap(hash);
    return statements()
        .compose(
            s ->
                client
                    .execute(read(s.ticketByHash().bind(h)))
                    .compose(
                        rs -> {
                          Row r = rs.one();
                          if (r == null) {
                            return Future.succeededFuture(Optional.<Principal>empty());
                          }
                          Principal p = ticketPrincipal(r);
                          // the lightweight transaction makes the ticket single-use across
                          // instances
                          return client
                              .execute(s.deleteTicket().bind(h).setIdempotent(false))
                              .map(d -> d.wasApplied() ? Optional.of(p) : Optional.empty());
                        }));
  }

  private static BoundStatement read(BoundStatement b) {
    return b.setExecutionProfileName(CassandraClients.READ_PROFILE).setIdempotent(true);
  }

  private static KeyRecord key(Row r) {
    ByteBuffer hash = r.getByteBuffer(2);
    byte[] bytes = null;
    if (hash != null) {
      bytes = new byte[hash.remaining()];
      hash.duplicate().get(bytes);
    }
    return new KeyRecord(
        r.getString(0),
        r.getString(1),
        bytes,
        scopes(r.getSet(3, String.class)),
        r.getList(4, String.class),
        r.getInt(5),
        r.getInstant(6),
        r.getString(7),
        r.getInstant(8));
  }

  private static Principal ticketPrincipal(Row r) {
    return new Principal(
        r.getString(0),
        Principal.Kind.valueOf(r.getString(1)),
        r.getString(2),
        scopes(r.getSet(3, String.class)),
        DevicePatterns.of(r.getList(4, String.class)),
        r.getInt(5),
        r.getLong(6));
  }

  private static Set<Scope> scopes(Set<String> texts) {
    Set<Scope> out = EnumSet.noneOf(Scope.class);
    texts.forEach(t -> Scope.parse(t).ifPresent(out::add));
    return out;
  }

  private static Set<String> scopeTexts(Set<Scope> scopes) {
    return scopes.stream().map(Scope::text).collect(Collectors.toSet());
  }
}
