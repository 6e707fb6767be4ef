package io.ambergarden.localrt;

import java.util.concurrent.CountDownLatch;

/**
 * Command line for the local runtime, configured by {@link LocalRuntimeOptions} properties:
 * <ul>
 *   <li>{@code start}: start Cassandra and Kafka, print the endpoints, run until SIGTERM/Ctrl-C,
 *       then stop both;</li>
 *   <li>{@code stop}: stop servers a killed earlier run left behind (found by pid file);</li>
 *   <li>{@code reset}: delete the data directories (servers must be stopped).</li>
 * </ul>
 */
public final class LocalRuntimeMain {
  private LocalRuntimeMain() {}

  public static void main(String[] args) throws InterruptedException {
    String command = args.length == 0 ? "start" : args[0];
    LocalRuntimeOptions options = LocalRuntimeOptions.fromEnvironment();
    switch (command) {
      case "start" -> start(options);
      case "stop" -> {
        new CassandraNode(options).stopStale();
        new KafkaBroker(options).stopStale();
      }
      case "reset" -> LocalRuntime.wipe(options);
      default -> {
        System.err.println("usage: LocalRuntimeMain start|stop|reset");
        System.exit(2);
      }
    }
  }

  private static void start(LocalRuntimeOptions options) throws InterruptedException {
    LocalRuntime runtime = new LocalRuntime(options);
    CountDownLatch stopped = new CountDownLatch(1);
    // registered before start so Ctrl-C during a slow boot also stops what already runs
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        runtime.close();
      } finally {
        stopped.countDown();
      }
    }, "localrt-shutdown"));
    runtime.start();
    System.out.println();
    System.out.println("Cassandra:  " + runtime.cassandraContactPoint() + " (datacenter "
        + CassandraNode.LOCAL_DATACENTER + ", log " + runtime.cassandra().logFile() + ")");
    System.out.println("Kafka:      " + runtime.kafkaBootstrap() + " (log " + runtime.kafka().logFile() + ")");
    System.out.println("Data:       " + options.baseDir());
    System.out.println("Press Ctrl-C to stop both.");
    stopped.await(); // the shutdown hook releases this once the servers are down
  }
}
