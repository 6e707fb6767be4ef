package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.metadata.Metadata;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Which replicas own a statement's partition, from the driver's token map, refreshed every 30 s:
 * the key by which single-partition writes are grouped into batches for the same nodes. Unknown
 * (null) until the map is known, or for a statement without a routing key.
 */
public final class ReplicaLocator {
  private static final long REFRESH_MS = 30_000;

  /** Per value, roughly what a cell costs beyond its bytes in Cassandra's batch size accounting. */
  private static final int CELL_OVERHEAD_BYTES = 16;

  private final Vertx vertx;
  private final CassandraClient client;
  private final CqlIdentifier keyspace;
  private final long timer;
  private volatile TokenMap tokenMap;

  private ReplicaLocator(Vertx vertx, CassandraClient client, String keyspace, Metadata first) {
    this.vertx = vertx;
    this.client = client;
    this.keyspace = CqlIdentifier.fromInternal(keyspace);
    this.tokenMap = first.getTokenMap().orElse(null);
    this.timer = vertx.setPeriodic(REFRESH_MS, id -> refresh());
  }

  /**
   * Reads the metadata once before anything else uses the client: the Vert.x client's first uses
   * connect the shared session, and two of them at once fail (SessionHolder.connected).
   */
  public static Future<ReplicaLocator> start(Vertx vertx, CassandraClient client, String keyspace) {
    return client.metadata().map(m -> new ReplicaLocator(vertx, client, keyspace, m));
  }

  private void refresh() {
    client.metadata().onSuccess(m -> tokenMap = m.getTokenMap().orElse(null));
  }

  public Object replicasOf(BoundStatement s) {
    return replicasOf(tokenMap, keyspace, s);
  }

  /** The replica set of the statement's partition in {@code map}; null when it cannot be told. */
  public static Object replicasOf(TokenMap map, CqlIdentifier keyspace, BoundStatement s) {
    ByteBuffer key = map == null ? null : s.getRoutingKey();
    if (key == null) {
      return null;
    }
    Set<Node> replicas = map.getReplicas(keyspace, key);
    return replicas.isEmpty() ? null : replicas;
  }

  /**
   * Bytes of the bound values plus a per-cell overhead: near what Cassandra counts against its
   * batch limits.
   */
  public static int sizeOf(BoundStatement s) {
    int size = 0;
    for (ByteBuffer v : s.getValues()) {
      size += (v == null ? 0 : v.remaining()) + CELL_OVERHEAD_BYTES;
    }
    return size;
  }

  public void close() {
    vertx.cancelTimer(timer);
  }
}
