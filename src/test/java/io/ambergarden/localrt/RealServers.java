package io.ambergarden.localrt;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JUnit 5 extension giving integration tests a real Cassandra node and Kafka broker:
 * {@code @ExtendWith(RealServers.class)}, then {@link #cassandraContactPoint()} and {@link
 * #kafkaBootstrap()}.
 *
 * <p>The first test class that uses it starts the servers; every later class in the same test JVM
 * reuses them. They are stopped when the whole run ends (root store resource, also after failures),
 * with a JVM shutdown hook as a safety net. Data lives in {@code amber.localrt.dir} (failsafe sets
 * {@code target/it-runtime}) and survives between runs, so tests must create their own
 * keyspaces/topics and not assume an empty server.
 *
 * <p>Ports differ from the dev defaults (CQL 19042, storage 17000, JMX 17199, Kafka 19092,
 * controller 19093, S3Proxy 19100) so tests never collide with a running dev instance; the usual
 * {@code amber.localrt.*} system properties still override them (e.g. {@code mvn verify
 * -Damber.localrt.cql.port=29042}), but {@code AMBER_LOCALRT_*} environment variables do not: those
 * are meant for the dev instance and would put the tests on its ports.
 *
 * <p>{@code -Damber.localrt.cassandra.nodes=3} (the {@code cluster} profile) gives the tests a
 * three-node cluster on 127.0.0.1-3 instead of one node; {@link #cassandraContactPoint()} then
 * names all of them.
 */
public final class RealServers implements BeforeAllCallback {
  private static final Logger LOG = LoggerFactory.getLogger(RealServers.class);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RealServers.class);

  private static volatile LocalRuntime runtime;

  /** A failed start is not retried by every later test class (each would wait for the deadline). */
  private static volatile RuntimeException startFailure;

  /** The options the tests run with: test ports, test dir, then environment overrides. */
  public static LocalRuntimeOptions testOptions() {
    LocalRuntimeOptions defaults = LocalRuntimeOptions.defaults().overriddenFromSystemProperties();
    return defaults
        .withBaseDir(defaults.projectDir().resolve("target/it-runtime"))
        .withCqlPort(19042)
        .withStoragePort(17000)
        .withJmxPort(17199)
        .withKafkaPort(19092)
        .withKafkaControllerPort(19093)
        .overriddenFromSystemProperties();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    // the root store outlives every test class; its resource is closed once, at the end of the run
    context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Started.class, k -> startOnce(), Started.class);
    // a no-op normally; brings back a server an earlier test class stopped and did not restart
    runtime().start();
  }

  private static synchronized Started startOnce() {
    if (startFailure != null) {
      throw startFailure;
    }
    LocalRuntime rt =
        new LocalRuntime(
                testOptions(), kafkaSecurePort(), CassandraCluster.sizeFromSystemProperties())
            .withObjectStore(S3ProxyOptions.forTests());
    Runtime.getRuntime().addShutdownHook(new Thread(rt::close, "real-servers-shutdown"));
    try {
      rt.start();
    } catch (RuntimeException e) {
      startFailure = e;
      throw e;
    }
    runtime = rt;
    return new Started(rt);
  }

  /**
   * The broker's SASL_SSL listener (19094 unless {@code -Damber.localrt.kafka.secure.port} says
   * otherwise): the plain ITs never use it, the secured one does.
   */
  static int kafkaSecurePort() {
    return Integer.getInteger(LocalRuntime.KAFKA_SECURE_PORT, 19094);
  }

  /** Closed by JUnit when the root context ends. */
  private record Started(LocalRuntime rt) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      LOG.info("Test run finished; stopping the real servers");
      rt.close();
    }
  }

  public static LocalRuntime runtime() {
    LocalRuntime rt = runtime;
    if (rt == null) {
      throw new IllegalStateException(
          "Real servers are not started: annotate the test class with "
              + "@ExtendWith(RealServers.class)");
    }
    return rt;
  }

  /** "127.0.0.1:19042" by default; every node, comma-separated, for a cluster. */
  public static String cassandraContactPoint() {
    return runtime().cassandraContactPoint();
  }

  /** "127.0.0.1:19092" by default. */
  public static String kafkaBootstrap() {
    return runtime().kafkaBootstrap();
  }

  /** The object store's settings for the service: endpoint and the generated credentials. */
  public static java.util.Map<String, String> objectStoreConfig() {
    S3ProxyServer s3 = runtime().objectStore();
    return java.util.Map.of(
        "media.s3.endpoint", s3.endpoint(),
        "media.s3.access-key", s3.accessKey(),
        "media.s3.secret-key", s3.secretKey());
  }
}
