package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.SecurityConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.CassandraClientOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Builds the driver session for the Vert.x Cassandra client. Execution profiles carry the per-kind
 * consistency, and speculation is configured once: the driver applies it only to statements marked
 * idempotent. Counter statements use {@link #COUNTER_PROFILE}, which never retries.
 */
public final class CassandraClients {
  public static final String CLIENT_NAME = "amber-cassandra";
  static final String READ_CLIENT_NAME = "amber-cassandra-reads";
  public static final String READ_PROFILE = "read";
  public static final String COUNTER_PROFILE = "counter";
  public static final String DDL_PROFILE = "ddl";

  private CassandraClients() {}

  /** A client shared by all verticles of this Vertx instance (one driver session). */
  public static CassandraClient shared(Vertx vertx, AmberConfig.Cassandra cfg) {
    return CassandraClient.createShared(vertx, CLIENT_NAME, options(cfg));
  }

  /**
   * The client of the query verticles: a session of their own when cassandra.separate-read-session
   * is on (shared by them), else the shared one.
   */
  public static CassandraClient reads(Vertx vertx, AmberConfig.Cassandra cfg) {
    return cfg.separateReadSession()
        ? CassandraClient.createShared(vertx, READ_CLIENT_NAME, options(cfg))
        : shared(vertx, cfg);
  }

  /**
   * Opens the query verticles' own session (null when cassandra.separate-read-session is off) with
   * one awaited metadata read, before they start: concurrent first uses of a shared Vert.x
   * Cassandra client fail to connect.
   */
  public static Future<CassandraClient> connectReads(Vertx vertx, AmberConfig.Cassandra cfg) {
    if (!cfg.separateReadSession()) {
      return Future.succeededFuture();
    }
    CassandraClient client = reads(vertx, cfg);
    return client.metadata().map(client).onFailure(err -> client.close());
  }

  public static CassandraClientOptions options(AmberConfig.Cassandra cfg) {
    return options(cfg, cfg.username(), cfg.password());
  }

  /**
   * A client of its own for the schema applier: the cassandra.schema.* role when set (it may create
   * and alter; the service's role may not), else the service's credentials. Caller closes it. It
   * keeps no schema metadata: with it, the driver would refresh the metadata and wait for agreement
   * after each DDL statement (a second or more each); {@link SchemaMigrator} waits for agreement
   * itself, after its statements.
   */
  public static CassandraClient schemaApplier(Vertx vertx, AmberConfig.Cassandra cfg) {
    SecurityConfig.CassandraSecurity s = cfg.security();
    ProgrammaticDriverConfigLoaderBuilder config =
        configLoader(cfg).withBoolean(DefaultDriverOption.METADATA_SCHEMA_ENABLED, false);
    return s.schemaUsername().isEmpty()
        ? CassandraClient.create(vertx, options(cfg, cfg.username(), cfg.password(), config))
        : CassandraClient.create(
            vertx, options(cfg, s.schemaUsername(), s.schemaPassword(), config));
  }

  private static CassandraClientOptions options(
      AmberConfig.Cassandra cfg, String username, String password) {
    return options(cfg, username, password, configLoader(cfg));
  }

  private static CassandraClientOptions options(
      AmberConfig.Cassandra cfg,
      String username,
      String password,
      ProgrammaticDriverConfigLoaderBuilder config) {
    CqlSessionBuilder builder =
        CqlSession.builder()
            .withLocalDatacenter(cfg.localDatacenter())
            .withConfigLoader(config.build());
    for (InetSocketAddress cp : cfg.contactPoints()) {
      builder.addContactPoint(new InetSocketAddress(cp.getHostString(), cp.getPort()));
    }
    if (!username.isEmpty()) {
      builder.withAuthCredentials(username, password);
    }
    if (cfg.security().ssl()) {
      builder.withSslEngineFactory(CassandraTls.engineFactory(cfg.security()));
    }
    return new CassandraClientOptions(builder);
  }

  static ProgrammaticDriverConfigLoaderBuilder configLoader(AmberConfig.Cassandra cfg) {
    ProgrammaticDriverConfigLoaderBuilder b =
        DriverConfigLoader.programmaticBuilder()
            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, cfg.requestTimeout())
            .withString(DefaultDriverOption.REQUEST_CONSISTENCY, cfg.writeConsistency())
            .withBoolean(DefaultDriverOption.REQUEST_DEFAULT_IDEMPOTENCE, false)
            // a restarted node must be picked up quickly; the default backoff grows to 60 s
            .withDuration(DefaultDriverOption.RECONNECTION_BASE_DELAY, Duration.ofMillis(500))
            .withDuration(DefaultDriverOption.RECONNECTION_MAX_DELAY, Duration.ofSeconds(5))
            .withBoolean(DefaultDriverOption.RECONNECT_ON_INIT, false)
            .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(5))
            .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, Duration.ofSeconds(5))
            .withDuration(
                DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30));
    if (cfg.speculativeDelay().isZero()) {
      b.withString(
          DefaultDriverOption.SPECULATIVE_EXECUTION_POLICY_CLASS, "NoSpeculativeExecutionPolicy");
    } else {
      b.withString(
              DefaultDriverOption.SPECULATIVE_EXECUTION_POLICY_CLASS,
              "ConstantSpeculativeExecutionPolicy")
          // max-executions counts the first one too
          .withInt(DefaultDriverOption.SPECULATIVE_EXECUTION_MAX, cfg.speculativeMax() + 1)
          .withDuration(DefaultDriverOption.SPECULATIVE_EXECUTION_DELAY, cfg.speculativeDelay());
    }
    return b.startProfile(READ_PROFILE)
        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, cfg.readConsistency())
        .endProfile()
        .startProfile(COUNTER_PROFILE)
        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, cfg.counterConsistency())
        .withString(DefaultDriverOption.RETRY_POLICY_CLASS, NeverRetryPolicy.class.getName())
        .withString(
            DefaultDriverOption.SPECULATIVE_EXECUTION_POLICY_CLASS, "NoSpeculativeExecutionPolicy")
        .endProfile()
        .startProfile(DDL_PROFILE)
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "ONE")
        .endProfile();
  }
}
