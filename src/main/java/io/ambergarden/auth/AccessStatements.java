package io.ambergarden.auth;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/** The CQL of API keys and tickets, prepared once. The keyspace is a validated config value. */
record AccessStatements(
    PreparedStatement insertKey,
    PreparedStatement keyById,
    PreparedStatement listKeys,
    PreparedStatement revokeKey,
    PreparedStatement insertTicket,
    PreparedStatement ticketByHash,
    PreparedStatement deleteTicket) {

  /** Columns of a key, in the order {@link KeyStore} reads them. */
  static final String KEY_COLUMNS =
      "key_id, name, secret_hash, scopes, devices, rate_per_second, created_at, created_by,"
          + " revoked_at";

  static final String TICKET_COLUMNS =
      "principal_id, principal_kind, name, scopes, devices, rate_per_second, expires_at";

  static Future<AccessStatements> prepare(CassandraClient client, String ks) {
    Future<PreparedStatement> insertKey =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".api_keys ("
                + KEY_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS");
    Future<PreparedStatement> keyById =
        client.prepare("SELECT " + KEY_COLUMNS + " FROM " + ks + ".api_keys WHERE key_id = ?");
    Future<PreparedStatement> listKeys =
        client.prepare(
            "SELECT "
                + KEY_COLUMNS
                + ", token(key_id) FROM "
                + ks
                + ".api_keys WHERE token(key_id) > ? LIMIT ?");
    Future<PreparedStatement> revokeKey =
        client.prepare("UPDATE " + ks + ".api_keys SET revoked_at = ? WHERE key_id = ? IF EXISTS");
    Future<PreparedStatement> insertTicket =
        client.prepare(
            "INSERT INTO "
                + ks
                + ".live_tickets (ticket_hash, "
                + TICKET_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?");
    Future<PreparedStatement> ticketByHash =
        client.prepare(
            "SELECT " + TICKET_COLUMNS + " FROM " + ks + ".live_tickets WHERE ticket_hash = ?");
    Future<PreparedStatement> deleteTicket =
        client.prepare("DELETE FROM " + ks + ".live_tickets WHERE ticket_hash = ? IF EXISTS");
    return Future.all(
            List.of(
                insertKey, keyById, listKeys, revokeKey, insertTicket, ticketByHash, deleteTicket))
        .map(
            all ->
                new AccessStatements(
                    insertKey.result(),
                    keyById.result(),
                    listKeys.result(),
                    revokeKey.result(),
                    insertTicket.result(),
                    ticketByHash.result(),
                    deleteTicket.result()));
  }
}
