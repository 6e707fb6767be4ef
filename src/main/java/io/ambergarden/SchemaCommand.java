package io.ambergarden;

import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.config.AmberConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code java -jar amber-garden.jar schema}: applies the schema and exits. */
final class SchemaCommand {
  private SchemaCommand() {}

  /**
   * The {@code schema} command: the one schema applier of a deployment (a Kubernetes Job before the
   * pods roll). Applies what is missing, gives the keyspace and system_auth their configured
   * replication, and returns only when the nodes that are up agree on the schema.
   */
  static int run(AmberConfig config) {
    Vertx vertx = Vertx.vertx();
    CassandraClient client = CassandraClients.schemaApplier(vertx, config.cassandra());
    try {
      SchemaMigrator migrator = new SchemaMigrator(vertx, client, config);
      List<Integer> applied = migrator.migrate().await(5, TimeUnit.MINUTES);
      List<String> changed = migrator.alignReplication().await(5, TimeUnit.MINUTES);
      System.out.println(
          "schema of keyspace "
              + config.cassandra().keyspace()
              + " is current (applied now: "
              + applied
              + "), replication "
              + config.cassandra().replication()
              + ", schema agreed on every node that is up");
      if (!changed.isEmpty()) {
        System.out.println(
            "replication changed for "
                + changed
                + ": run `nodetool repair <keyspace>` on each node so existing data gets its"
                + " new replicas");
      }
      return 0;
    } catch (Exception e) {
      System.err.println("schema migration failed: " + StartupFailure.of(e).getMessage());
      return 1;
    } finally {
      client.close().eventually(vertx::close);
    }
  }
}
