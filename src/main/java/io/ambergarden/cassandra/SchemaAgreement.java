package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.NodeState;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits until every node that is up reports the same schema version, asking each node itself
 * (system.local, the statement pinned to that node) rather than one node's gossip view of its
 * peers: what the driver's checkSchemaAgreement does, through the Vert.x client, which does not
 * expose the session. DDL from several coordinators before agreement may diverge, so the one schema
 * applier reports done only after this.
 */
public final class SchemaAgreement {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaAgreement.class);
  private static final long POLL_MS = 500;

  private SchemaAgreement() {}

  /**
   * What one round saw: schema version per node that is up (null: it did not answer), and the nodes
   * the driver sees down (left out, as the driver's own check does).
   */
  public record Round(Map<String, UUID> versions, List<String> down) {
    /** Agreement: every node that is up answered, all with the same version. */
    public boolean agreed() {
      return !versions.isEmpty()
          && versions.values().stream().noneMatch(java.util.Objects::isNull)
          && versions.values().stream().distinct().count() == 1;
    }

    @Override
    public String toString() {
      return "versions " + versions + (down.isEmpty() ? "" : ", down " + down);
    }
  }

  /** Completes when the nodes that are up agree; fails with the last round after the timeout. */
  public static Future<Round> await(Vertx vertx, CassandraClient client, Duration timeout) {
    Promise<Round> done = Promise.promise();
    poll(vertx, client, System.nanoTime() + timeout.toNanos(), timeout, done);
    return done.future();
  }

  private static void poll(
      Vertx vertx, CassandraClient client, long deadline, Duration timeout, Promise<Round> done) {
    round(client)
        .onComplete(
            ar -> {
              if (ar.succeeded() && ar.result().agreed()) {
                LOG.info("schema agreement: {}", ar.result());
                done.complete(ar.result());
              } else if (System.nanoTime() > deadline) {
                done.fail(
                    new IllegalStateException(
                        "no schema agreement within "
                            + timeout.toSeconds()
                            + " s: "
                            + (ar.succeeded() ? ar.result() : ar.cause().toString())));
              } else {
                vertx.setTimer(POLL_MS, id -> poll(vertx, client, deadline, timeout, done));
              }
            });
  }

  /** One round: each node that is up is asked for its own schema version. */
  public static Future<Round> round(CassandraClient client) {
    return client
        .metadata()
        .compose(
            metadata -> {
              Map<String, Future<UUID>> asked = new TreeMap<>();
              List<String> down = new ArrayList<>();
              for (Node node : metadata.getNodes().values()) {
                String name = String.valueOf(node.getEndPoint());
                if (node.getState() == NodeState.UP) {
                  asked.put(name, versionOf(client, node));
                } else {
                  down.add(name);
                }
              }
              return Future.join(new ArrayList<>(asked.values()))
                  .transform(
                      ignored -> {
                        Map<String, UUID> versions = new TreeMap<>();
                        asked.forEach(
                            (name, f) -> versions.put(name, f.succeeded() ? f.result() : null));
                        return Future.succeededFuture(new Round(versions, down));
                      });
            });
  }

  private static Future<UUID> versionOf(CassandraClient client, Node node) {
    SimpleStatement q =
        SimpleStatement.newInstance("SELECT schema_version FROM system.local")
            .setNode(node)
            .setIdempotent(true)
            .setExecutionProfileName(CassandraClients.DDL_PROFILE);
    return client
        .execute(q)
        .map(
            rs -> {
              var row = rs.one();
              return row == null ? null : row.getUuid(0);
            });
  }
}
