package io.ambergarden.bench;

import io.ambergarden.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The service under test in its own JVM, configured through AMBER_* variables as in a pod (over the
 * ones the bench itself was given): its CPU, JIT and memory are its own, apart from the harness's
 * load generators.
 */
public final class BenchService implements AutoCloseable {
  private static final Duration READY_DEADLINE = Duration.ofMinutes(3);
  private static final Duration STOP_DEADLINE = Duration.ofMinutes(1);

  private volatile String apiKey;
  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private BenchService(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code java <jvmOptions> io.ambergarden.AmberGarden} and waits until /health/ready
   * answers 200.
   */
  public static BenchService start(
      Map<String, String> config, int port, List<String> jvmOptions, Path log)
      throws IOException, InterruptedException {
    return start(config, port, jvmOptions, harnessClasspath(), log, List.of(), Map.of());
  }

  /** As above, on the given classpath (see {@link ClassDataSharing#classpath()}). */
  public static BenchService start(
      Map<String, String> config, int port, List<String> jvmOptions, String classpath, Path log)
      throws IOException, InterruptedException {
    return start(config, port, jvmOptions, classpath, log, List.of(), Map.of());
  }

  /**
   * The same, started through {@code commandPrefix} (e.g. setpriv giving it a group of its own)
   * with {@code environment} added (e.g. a clock skew's LD_PRELOAD): the chaos run's faults.
   */
  public static BenchService start(
      Map<String, String> config,
      int port,
      List<String> jvmOptions,
      Path log,
      List<String> commandPrefix,
      Map<String, String> environment)
      throws IOException, InterruptedException {
    return start(config, port, jvmOptions, harnessClasspath(), log, commandPrefix, environment);
  }

  /** The most general start: classpath, launch prefix and added environment. */
  public static BenchService start(
      Map<String, String> config,
      int port,
      List<String> jvmOptions,
      String classpath,
      Path log,
      List<String> commandPrefix,
      Map<String, String> environment)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(commandPrefix);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", classpath, "io.ambergarden.AmberGarden"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    // the service refuses unknown AMBER_* variables: the chaos harness's own are not its config
    pb.environment().keySet().removeIf(k -> k.startsWith("AMBER_CHAOS_"));
    pb.environment().putAll(environment);
    config.forEach((k, v) -> pb.environment().put(ConfigLoader.envName(k), v));
    Files.createDirectories(log.getParent());
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    BenchService service = new BenchService(pb.start(), port, log);
    try {
      service.awaitReady();
    } catch (IOException | InterruptedException | RuntimeException e) {
      service.close();
      throw e;
    }
    return service;
  }

  /**
   * The config of a direct-mode instance (no Kafka consumer) on the local runtime's servers, with
   * its own topics named after {@code topic}, listening on {@code port}; the caller adds the rest.
   */
  public static Map<String, String> directModeConfig(
      String cassandra, String kafka, String keyspace, String topic, int port) {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", cassandra);
    cfg.put("kafka.bootstrap-servers", kafka);
    cfg.put("cassandra.keyspace", keyspace);
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", topic);
    cfg.put("live.topic", topic + ".live");
    cfg.put("ingest.mode", "direct");
    cfg.put("kafka.consumer.enabled", "false");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", Integer.toString(port));
    return cfg;
  }

  /**
   * The harness's own classpath: exec:java runs it in a URLClassLoader holding the project and its
   * deps.
   */
  public static String harnessClasspath() {
    ClassLoader loader = BenchService.class.getClassLoader();
    if (loader instanceof URLClassLoader urls && urls.getURLs().length > 0) {
      List<String> entries = new ArrayList<>();
      for (URL url : urls.getURLs()) {
        try {
          entries.add(Path.of(url.toURI()).toString());
        } catch (java.net.URISyntaxException e) {
          throw new IllegalStateException("classpath entry " + url, e);
        }
      }
      return String.join(java.io.File.pathSeparator, entries);
    }
    return System.getProperty("java.class.path");
  }

  private void awaitReady() throws IOException, InterruptedException {
    long end = System.nanoTime() + READY_DEADLINE.toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "service exited with " + process.exitValue() + "; log " + log + ":\n" + tail());
      }
      try {
        if (get("/health/ready").statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      process.waitFor(
          200, TimeUnit.MILLISECONDS); // polls readiness, with the process's exit as the other end
    }
    throw new IllegalStateException(
        "service not ready within " + READY_DEADLINE + "; log " + log + ":\n" + tail());
  }

  /** From now on, {@link #get} presents this API key (a service with auth on). */
  public void authenticateWith(String key) {
    this.apiKey = key;
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .GET();
    String key = apiKey;
    if (key != null) {
      request.header("X-API-Key", key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The Prometheus scrape, or empty text when the service does not answer. */
  public String metrics() {
    try {
      return get("/metrics").body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  public ProcessHandle handle() {
    return process.toHandle();
  }

  public int port() {
    return port;
  }

  private String tail() {
    return String.join("\n", logTail(40, l -> true));
  }

  /** The last {@code n} lines of the service's log that {@code keep} accepts. */
  public List<String> logTail(int n, java.util.function.Predicate<String> keep) {
    try {
      List<String> lines = Files.readAllLines(log).stream().filter(keep).toList();
      return lines.subList(Math.max(0, lines.size() - n), lines.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL: no shutdown hook, no drain, no final commit. */
  public void crash() throws InterruptedException {
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM and the service's own graceful stop; SIGKILL only past the deadline. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
      System.out.println(
          "  service did not stop within " + STOP_DEADLINE + ", killing it; log " + log);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
