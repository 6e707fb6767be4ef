package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.NodeState;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned CQL in schema/ in order, then waits for schema agreement. Every statement
 * is IF NOT EXISTS (a table, or a column added by ALTER TABLE), so applying twice is harmless;
 * schema_version records what was applied. In a cluster one applier runs it (the {@code schema}
 * command, a Kubernetes Job): concurrent DDL through several coordinators can diverge.
 *
 * <p>All statements go through one coordinator, which sees its own DDL in order, so the applier
 * waits for agreement only twice: once the schema_version table exists, and at the end. With the
 * applier's session ({@link CassandraClients#schemaApplier}) the driver adds no wait of its own per
 * statement.
 */
public final class SchemaMigrator {
  /** Every file in schema/, in order. SchemaMigratorTest checks the list matches the folder. */
  public static final List<String> SCRIPTS =
      List.of(
          "001_core.cql",
          "002_counters_rollups.cql",
          "003_fleet_hot_devices.cql",
          "004_access.cql",
          "005_media.cql",
          "006_exact_counters.cql",
          "007_slim_type_index.cql");

  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrator.class);

  /** How long the nodes that are up may take to agree after DDL. */
  static final Duration AGREEMENT_TIMEOUT = Duration.ofSeconds(60);

  /** Keyspaces the service's tables and its logins live in; the applier gives both their RF. */
  private static final String SYSTEM_AUTH = "system_auth";

  private final Vertx vertx;
  private final CassandraClient client;
  private final AmberConfig.Cassandra cfg;
  private final Map<String, String> values;

  /** The node every statement goes to; chosen when a migration or alignment starts. */
  private Node coordinator;

  public SchemaMigrator(Vertx vertx, CassandraClient client, AmberConfig config) {
    this.vertx = vertx;
    this.client = client;
    this.cfg = config.cassandra();
    this.values = placeholders(config);
  }

  public static Map<String, String> placeholders(AmberConfig config) {
    return Map.of(
        "keyspace",
        config.cassandra().keyspace(),
        "replication",
        config.cassandra().replication(),
        "retention_seconds",
        Long.toString(config.events().retention().toSeconds()),
        "abnormal_ttl_seconds",
        Long.toString(config.cassandra().abnormalRetention().toSeconds()));
  }

  public static List<SchemaScript> scripts(Map<String, String> values) {
    return SCRIPTS.stream()
        .map(name -> SchemaScript.parse(name, read("schema/" + name), values))
        .toList();
  }

  /** Applies what is missing and waits for agreement; completes with the versions applied now. */
  public Future<List<Integer>> migrate() {
    List<SchemaScript> scripts = scripts(values);
    // the first script creates the keyspace and schema_version, so it always runs first
    return pickCoordinator()
        .compose(v -> runAll(scripts.get(0).statements().subList(0, 2)))
        // a replica that has not seen the new table yet fails the read (a cluster under load)
        .compose(v -> SchemaAgreement.await(vertx, client, AGREEMENT_TIMEOUT))
        .compose(
            v ->
                client.executeWithFullFetch(
                    ddl("SELECT version FROM " + cfg.keyspace() + ".schema_version")))
        .compose(
            rows -> {
              Set<Integer> applied =
                  rows.stream().map(r -> r.getInt(0)).collect(Collectors.toSet());
              List<SchemaScript> missing =
                  scripts.stream().filter(s -> !applied.contains(s.version())).toList();
              Future<Void> chain = Future.succeededFuture();
              for (SchemaScript s : missing) {
                chain = chain.compose(v -> apply(s));
              }
              return chain.map(v -> missing.stream().map(SchemaScript::version).toList());
            })
        .compose(applied -> grants().map(applied))
        .compose(
            applied ->
                SchemaAgreement.await(vertx, client, AGREEMENT_TIMEOUT).map(round -> applied))
        .onSuccess(
            v -> LOG.info("schema of keyspace {} is current; applied now: {}", cfg.keyspace(), v));
  }

  /**
   * Gives the keyspace and system_auth the configured replication (cassandra.replication), as the
   * production schema applier must: CREATE KEYSPACE IF NOT EXISTS leaves an existing keyspace as it
   * was, and system_auth starts at RF 1, so one lost node would lock every login out. Waits for
   * agreement; completes with the keyspaces whose replication changed (they need a repair).
   */
  public Future<List<String>> alignReplication() {
    List<String> keyspaces = List.of(cfg.keyspace(), SYSTEM_AUTH);
    Future<List<String>> chain = pickCoordinator().map(v -> new ArrayList<>());
    for (String ks : keyspaces) {
      chain =
          chain.compose(
              changed ->
                  replicationOf(ks)
                      .compose(
                          before ->
                              client
                                  .execute(
                                      ddl(
                                          "ALTER KEYSPACE "
                                              + ks
                                              + " WITH replication = "
                                              + cfg.replication()))
                                  .compose(rs -> replicationOf(ks))
                                  .map(
                                      after -> {
                                        if (!after.equals(before)) {
                                          LOG.info(
                                              "replication of {}: {} -> {}", ks, before, after);
                                          changed.add(ks);
                                        }
                                        return changed;
                                      })));
    }
    return chain.compose(
        changed -> SchemaAgreement.await(vertx, client, AGREEMENT_TIMEOUT).map(round -> changed));
  }

  private Future<Map<String, String>> replicationOf(String keyspace) {
    return client
        .executeWithFullFetch(
            ddl(
                "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
                keyspace))
        .map(rows -> rows.isEmpty() ? Map.of() : rows.get(0).getMap(0, String.class, String.class));
  }

  /**
   * The service's role gets only SELECT and MODIFY on the keyspace (cassandra.schema.grant-to);
   * granting again is harmless. Role names are validated identifiers from config.
   */
  private Future<Void> grants() {
    Future<Void> chain = Future.succeededFuture();
    for (String role : cfg.security().grantTo()) {
      for (String permission : List.of("SELECT", "MODIFY")) {
        String cql = "GRANT " + permission + " ON KEYSPACE " + cfg.keyspace() + " TO " + role;
        chain = chain.compose(v -> client.execute(ddl(cql)).mapEmpty());
      }
    }
    return chain;
  }

  private Future<Void> apply(SchemaScript s) {
    LOG.info("applying schema {} ({})", s.version(), s.name());
    return runAll(s.statements())
        .compose(
            v ->
                client.execute(
                    ddl(
                        "INSERT INTO "
                            + cfg.keyspace()
                            + ".schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                        s.version(),
                        s.name(),
                        Instant.now())))
        .mapEmpty();
  }

  private Future<Void> runAll(List<String> statements) {
    Future<Void> chain = Future.succeededFuture();
    for (String cql : statements) {
      chain = chain.compose(v -> client.execute(ddl(cql)).mapEmpty());
    }
    return chain;
  }

  /** The first node that is up (in address order): the coordinator of every statement. */
  private Future<Void> pickCoordinator() {
    return client
        .metadata()
        .compose(
            metadata -> {
              coordinator =
                  metadata.getNodes().values().stream()
                      .filter(n -> n.getState() == NodeState.UP)
                      .min(Comparator.comparing(n -> String.valueOf(n.getEndPoint())))
                      .orElse(null);
              if (coordinator == null) {
                return Future.failedFuture(
                    new IllegalStateException("no Cassandra node is up to apply the schema"));
              }
              LOG.info("applying the schema through {}", coordinator.getEndPoint());
              return Future.succeededFuture();
            });
  }

  private SimpleStatement ddl(String cql, Object... values) {
    return SimpleStatement.newInstance(cql, values)
        .setExecutionProfileName(CassandraClients.DDL_PROFILE)
        .setIdempotent(true)
        .setNode(coordinator);
  }

  private static String read(String resource) {
    try (InputStream in = SchemaMigrator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }
}
