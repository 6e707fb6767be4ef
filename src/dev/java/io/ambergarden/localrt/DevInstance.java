package io.ambergarden.localrt;

import io.ambergarden.AmberGarden;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code mvn -Pinstance -Damber.http.port=8081}: one more service instance on the servers of a
 * running {@code mvn -Prun}, in the same consumer group (the partitions are shared out), on its own
 * HTTP port. It applies no schema (the run command's instance did: one applier) and runs no
 * simulator. Ctrl-C stops it; the servers keep running.
 */
public final class DevInstance {
  private DevInstance() {}

  public static void main(String[] args) throws Exception {
    LocalRuntimeOptions options = LocalRuntimeOptions.fromEnvironment();
    Map<String, String> endpoints = DevEndpoints.read(options);
    Properties props = new Properties();
    props.putAll(System.getProperties());
    if (System.getenv("AMBER_HTTP_PORT") == null && props.getProperty("amber.http.port") == null) {
      throw new IllegalArgumentException(
          "Give this instance its own HTTP port: mvn -Pinstance -Damber.http.port=8081");
    }
    Map<String, String> overrides = new HashMap<>(endpoints);
    overrides.put("cassandra.schema.apply", "false");
    overrides.put("kafka.create-topics", "false");
    overrides.put("simulator.enabled", "false");
    AmberConfig config = ConfigLoader.load(System.getenv(), props, overrides);
    AmberGarden app = AmberGarden.start(config).await(5, TimeUnit.MINUTES);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    app.stop().await(60, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    System.err.println("service stop: " + e);
                  } finally {
                    stopped.countDown();
                  }
                },
                "devinstance-shutdown"));
    System.out.printf(
        "%n  Amber Garden instance ready on http://localhost:%d/ (group %s, Cassandra %s)%n"
            + "  Ctrl-C stops this instance only.%n%n",
        config.http().port(), config.kafka().groupId(), config.cassandra().contactPoints());
    stopped.await();
  }
}
