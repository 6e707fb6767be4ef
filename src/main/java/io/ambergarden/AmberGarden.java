package io.ambergarden;

import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.Scope;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigException;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.counter.CounterVerticle;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthProbeVerticle;
import io.ambergarden.health.HealthState;
import io.ambergarden.ingest.KafkaIngestVerticle;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.live.LiveRelayVerticle;
import io.ambergarden.media.MediaVerticles;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.query.QueryVerticle;
import io.ambergarden.query.StatsVerticle;
import io.ambergarden.rollup.RollupVerticle;
import io.ambergarden.sim.SimulatorVerticle;
import io.ambergarden.web.Cursor;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.HttpVerticle;
import io.ambergarden.web.ManagementVerticle;
import io.ambergarden.write.WriterVerticle;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service: builds Vert.x with metrics, applies the schema, creates missing topics and deploys
 * the verticles; stops them in reverse order (HTTP first, so nothing new is accepted while work
 * drains).
 */
public final class AmberGarden {
  private static final Logger LOG = LoggerFactory.getLogger(AmberGarden.class);

  private final AmberConfig config;
  private final Vertx vertx;
  private final HealthState health;
  private final PrometheusMeterRegistry registry;
  private final Cursor cursor;
  private final LiveConnections liveConnections;
  private final AmberMeters meters;

  /** Shared by every HTTP verticle instance: the limits hold per process. */
  private final HttpBudgets httpBudgets;

  /** Names this process in rollup leases and on its live fan-out records. */
  private final String instanceId =
      java.lang.management.ManagementFactory.getRuntimeMXBean().getName()
          + "-"
          + java.util.UUID.randomUUID().toString().substring(0, 8);

  private final Deployments deployments;
  private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
  private CassandraClient cassandra;
  private CassandraClient readCassandra;
  private Gatekeeper gate;
  private ManagementVerticle management;
  private HttpVerticle http;

  /** One token-map view for every writer and the counter verticle. */
  private ReplicaLocator replicas;

  private AmberGarden(AmberConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
    this.cursor = ApiRoutes.cursor(config);
    this.liveConnections = new LiveConnections(config.live().maxConnections(), registry);
    this.meters = new AmberMeters(registry, config.kafka().topic());
    this.health = new HealthState(config.ingest().mode()).bindTo(registry);
    this.httpBudgets = HttpBudgets.of(config, registry);
    // heap, GC and CPU of the process: what an operator checks first when a pod is slow or grows
    new JvmMemoryMetrics().bindTo(registry);
    gcMetrics.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    this.vertx =
        Vertx.builder()
            .with(
                new VertxOptions()
                    .setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
            .withMetrics(new MicrometerMetricsFactory(registry))
            .build();
    this.deployments = new Deployments(vertx);
  }

  public static Future<AmberGarden> start(AmberConfig config) {
    AmberGarden app =
        new AmberGarden(config, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    // context-less: a future tied to one of this Vert.x's event loops would hand its result to a
    // loop that stop() has already terminated, and the caller would wait forever
    Promise<AmberGarden> started = Promise.promise();
    app.boot()
        .onComplete(
            booted -> {
              if (booted.succeeded()) {
                started.complete(app);
              } else {
                app.stop().onComplete(ignored -> started.fail(StartupFailure.of(booted.cause())));
              }
            });
    return started.future();
  }

  private Future<Void> boot() {
    LocalCodec.registerAll(vertx);
    EventParser parser = EventParsers.create(config, Clock.systemUTC());
    // held for the life of the service so the shared driver session stays open between verticles
    cassandra = CassandraClients.shared(vertx, config.cassandra());
    LOG.info("configuration (secrets redacted): {}", config.raw().redacted());
    // without Cassandra, HTTP ingest starts on Kafka alone and the rest follows when it answers
    boolean later = config.ingest().startWithoutCassandra();
    return (later ? Future.succeededFuture() : migrate())
        .compose(v -> KafkaStartChecks.check(vertx, config))
        .compose(
            v ->
                config.kafka().createTopics()
                    ? KafkaStartChecks.createTopics(vertx, config)
                    : Future.succeededFuture())
        .compose(v -> Gatekeeper.start(vertx, config, cassandra).onSuccess(g -> gate = g))
        .compose(v -> later ? Future.succeededFuture() : deployStoreSide(parser))
        .compose(v -> deployments.deploy(() -> new HealthProbeVerticle(config, health), 1))
        .compose(v -> later ? Future.succeededFuture() : deployConsumer(parser))
        .compose(v -> deployFront(parser))
        .onSuccess(v -> startStoreSideWhenUp(later, parser));
  }

  /** With ingest.start-without-cassandra, what needs Cassandra starts once it answers. */
  private void startStoreSideWhenUp(boolean later, EventParser parser) {
    if (!later) {
      return;
    }
    int mark = deployments.mark();
    RetryUntilDone.run(
        vertx,
        "starting the consumer, writers and reads on Cassandra (HTTP ingest goes on into Kafka)",
        () -> migrate().compose(v -> deployStoreSide(parser)).compose(v -> deployConsumer(parser)),
        () -> deployments.undeployAbove(mark).compose(v -> closeStoreClients()),
        deployments::stopped);
  }

  /** The token-map view and the read session, after a failed attempt to start on them. */
  private Future<Void> closeStoreClients() {
    ReplicaLocator locator = replicas;
    replicas = null;
    CassandraClient reads = readCassandra;
    readCassandra = null;
    if (locator != null) {
      locator.close();
    }
    return reads == null ? Future.succeededFuture() : reads.close().otherwiseEmpty();
  }

  private Future<Void> deployStoreSide(EventParser parser) {
    return ReplicaLocator.start(vertx, cassandra, config.cassandra().keyspace())
        .onSuccess(locator -> replicas = locator)
        .compose(
            v ->
                CassandraClients.connectReads(vertx, config.cassandra())
                    .onSuccess(c -> readCassandra = c))
        .compose(
            v ->
                config.counters().enabled()
                    ? deployments.deploy(() -> new CounterVerticle(config, registry, replicas), 1)
                    : Future.succeededFuture())
        .compose(
            v ->
                deployments.deploy(
                    () -> new WriterVerticle(config, meters, replicas),
                    config.writer().instances()))
        .compose(
            v ->
                deployments.deploy(
                    () -> new QueryVerticle(config, meters.reads()), config.query().instances()))
        .compose(
            v ->
                deployments.deploy(
                    () -> new StatsVerticle(config, meters.reads()), config.query().instances()))
        .compose(
            v ->
                config.live().enabled()
                    ? deployments.deploy(
                        () ->
                            new LiveRelayVerticle(
                                config, instanceId, parser, registry, liveConnections),
                        1)
                    : Future.succeededFuture())
        .compose(
            v ->
                config.rollups().enabled()
                    ? deployments.deploy(() -> new RollupVerticle(config, instanceId, registry), 1)
                    : Future.succeededFuture())
        .compose(v -> deployments.deployAll(MediaVerticles.of(config, instanceId, registry)))
        .compose(v -> deployments.deployClockCheck(config, registry));
  }

  private Future<Void> deployConsumer(EventParser parser) {
    return config.kafka().consumerEnabled()
        ? deployments.deploy(() -> new KafkaIngestVerticle(config, parser, health, meters), 1)
        : Future.succeededFuture();
  }

  /** HTTP, the management port and the simulator: what clients reach. */
  private Future<Void> deployFront(EventParser parser) {
    return deployments
        .deploy(
            () ->
                http =
                    ApiRoutes.httpVerticle(
                        config,
                        parser,
                        health,
                        registry,
                        cursor,
                        liveConnections,
                        meters,
                        httpBudgets,
                        gate),
            config.http().instances())
        .compose(
            v ->
                config.access().managementPortEnabled()
                    ? deployments.deploy(
                        () -> management = new ManagementVerticle(config, health, registry), 1)
                    : Future.succeededFuture())
        .compose(
            v ->
                config.simulator().enabled()
                    ? deployments.deploy(
                        () ->
                            new SimulatorVerticle(
                                config,
                                httpPort(),
                                gate.localKey("simulator", Set.of(Scope.EVENTS_WRITE))),
                        1)
                    : Future.succeededFuture())
        .onSuccess(
            v ->
                LOG.info(
                    "Amber Garden is up on http://{}:{} (ingest mode {})",
                    config.http().host(),
                    httpPort(),
                    config.ingest().mode()))
        .mapEmpty();
  }

  /** The schema (if cassandra.schema.apply), with the schema applier's own role when set. */
  private Future<?> migrate() {
    if (!config.cassandra().applySchema()) {
      return Future.succeededFuture();
    }
    CassandraClient applier = CassandraClients.schemaApplier(vertx, config.cassandra());
    return new SchemaMigrator(vertx, applier, config).migrate().eventually(applier::close);
  }

  /** Undeploys in reverse order of deployment, then closes the session and Vert.x; safe twice. */
  public synchronized Future<Void> stop() {
    health.shuttingDown(true);
    // completed from vertx.close()'s own thread, never through a context that close terminates
    Promise<Void> stopped = Promise.promise();
    deployments
        .stopAll()
        .compose(
            v -> {
              if (replicas != null) {
                replicas.close();
              }
              if (gate != null) {
                gate.close();
              }
              Future<Void> reads =
                  readCassandra == null ? Future.succeededFuture() : readCassandra.close();
              return cassandra == null ? reads : reads.eventually(cassandra::close);
            })
        .onComplete(
            clientsClosed ->
                vertx
                    .close()
                    .onComplete(
                        closed -> {
                          gcMetrics.close();
                          registry.close();
                          stopped.complete();
                        }));
    return stopped.future();
  }

  public AmberConfig config() {
    return config;
  }

  public HealthState health() {
    return health;
  }

  public Vertx vertx() {
    return vertx;
  }

  /** This instance's meters (tests read counters from it, also after a stop). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * The port the HTTP API listens on: http.port, or the one chosen at listen when it is 0 (every
   * HTTP verticle instance has the same); -1 before the HTTP verticles are deployed, and only
   * meaningful once {@link #start} has completed.
   */
  public int httpPort() {
    return http == null ? -1 : http.actualPort();
  }

  /** The port /metrics is served on without credentials, or -1 without a management port. */
  public int managementPort() {
    return management == null ? -1 : management.actualPort();
  }

  /** Credentials and keys; null until started. */
  public Gatekeeper gatekeeper() {
    return gate;
  }

  public static void main(String[] args) throws Exception {
    AmberConfig config;
    try {
      config = ConfigLoader.load();
    } catch (ConfigException e) {
      System.err.println("Configuration error: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (args.length > 0 && args[0].equals("schema")) {
      System.exit(SchemaCommand.run(config));
    }
    if (args.length > 0 && args[0].equals("keys")) {
      System.exit(KeysCommand.run(config, args, System.out, System.err));
    }
    AmberGarden app;
    try {
      app = start(config).await(5, TimeUnit.MINUTES);
    } catch (Exception e) {
      StartupFailure f = StartupFailure.of(e);
      if (f.known()) {
        LOG.error("startup failed: {}", f.getMessage());
        LOG.debug("startup failure details", e);
      } else {
        LOG.error("startup failed: {}", f.getMessage(), e);
      }
      System.exit(1);
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("SIGTERM: stopping");
                  try {
                    app.stop().await(config.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS);
                    LOG.info("stopped cleanly");
                  } catch (Exception e) {
                    LOG.warn("shutdown did not finish cleanly: {}", e.toString());
                  }
                },
                "amber-shutdown"));
  }
}
