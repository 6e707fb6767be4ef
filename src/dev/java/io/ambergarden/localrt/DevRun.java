package io.ambergarden.localrt;

import io.ambergarden.AmberGarden;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The README's run command ({@code mvn -Prun}): local Cassandra and Kafka, the schema, and the
 * service, in the foreground until Ctrl-C or SIGTERM, which stops all three. {@code
 * -Damber.dev.reset=true} wipes the local data first; {@code -Damber.localrt.cassandra.nodes=3}
 * runs a three-node cluster (keyspace replication RF 3) and prints its ring. Service config layers
 * as usual (AMBER_* env, -Damber.* properties); only the endpoints of the local servers are set
 * here. They are also written to {@code <base>/endpoints.properties}, where {@link DevInstance}
 * (`mvn -Pinstance`) finds them to join more service instances.
 */
public final class DevRun {
  private DevRun() {}

  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    LocalRuntimeOptions options = LocalRuntimeOptions.fromEnvironment();
    if (Boolean.getBoolean("amber.dev.reset")) {
      LocalRuntime.wipe(options);
    }
    LocalRuntime runtime =
        new LocalRuntime(
            options,
            Integer.getInteger(LocalRuntime.KAFKA_SECURE_PORT, 0),
            CassandraCluster.sizeFromEnvironment());
    CountDownLatch stopped = new CountDownLatch(1);
    AmberGarden[] app = new AmberGarden[1];
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    if (app[0] != null) {
                      app[0].stop().await(60, TimeUnit.SECONDS);
                    }
                  } catch (Exception e) {
                    System.err.println("service stop: " + e);
                  } finally {
                    runtime.close();
                    stopped.countDown();
                  }
                },
                "devrun-shutdown"));
    runtime.start();
    // the simulator makes the dashboard move for a new user; -Damber.simulator.enabled=false turns
    // it off
    Properties props = new Properties();
    props.putAll(System.getProperties());
    if (System.getenv("AMBER_SIMULATOR_ENABLED") == null) {
      props.putIfAbsent("amber.simulator.enabled", "true");
    }
    if (System.getenv("AMBER_CASSANDRA_REPLICATION") == null) {
      props.putIfAbsent("amber.cassandra.replication", runtime.cluster().replication());
    }
    AmberConfig config =
        ConfigLoader.load(
            System.getenv(),
            props,
            Map.of(
                "cassandra.contact-points", runtime.cassandraContactPoint(),
                "kafka.bootstrap-servers", runtime.kafkaBootstrap(),
                "media.s3.endpoint", runtime.objectStore().endpoint(),
                "media.s3.access-key", runtime.objectStore().accessKey(),
                "media.s3.secret-key", runtime.objectStore().secretKey()));
    DevEndpoints.write(options, runtime, config);
    app[0] = AmberGarden.start(config).await(5, TimeUnit.MINUTES);
    Path keyFile = options.baseDir().resolve("admin.key");
    String adminKey =
        config.access().enabled() ? LocalAdminKey.ensure(app[0], keyFile) : "(auth.enabled=false)";
    String base =
        (config.access().tls().enabled() ? "https" : "http")
            + "://localhost:"
            + config.http().port();
    System.out.printf("%n  Amber Garden is ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    System.out.println("  Dashboard:  " + base + "/");
    System.out.println(
        "  API:        " + base + "/api/v1/events (POST), " + base + "/api/v1/devices/{id}/events");
    System.out.println(
        "  Health:     " + base + "/health/ready   Metrics: " + base + "/metrics (admin key)");
    System.out.println("  Admin key:  " + adminKey);
    System.out.println(
        "              (in "
            + keyFile
            + "; send it as Authorization: Bearer <key>, or paste it into the dashboard)");
    System.out.println(
        "  Cassandra:  "
            + runtime.cassandraContactPoint()
            + " ("
            + config.cassandra().replication()
            + ")   Kafka: "
            + runtime.kafkaBootstrap()
            + "   S3: "
            + runtime.objectStore().endpoint());
    if (runtime.cluster().size() > 1) {
      System.out.println();
      System.out.println(runtime.cluster().status().stripTrailing().indent(2));
      System.out.println(
          "  More instances (same consumer group): mvn -Pinstance -Damber.http.port=8081");
    }
    System.out.println(
        "  Data:       "
            + options.baseDir()
            + "   (Ctrl-C stops the service, Cassandra, Kafka and S3Proxy)");
    System.out.println();
    stopped.await();
  }
}
