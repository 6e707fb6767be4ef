package io.ambergarden.it;

import io.ambergarden.config.ConfigLoader;
import io.ambergarden.localrt.RealServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service as a separate JVM (java io.ambergarden.AmberGarden), configured through AMBER_*
 * variables exactly as in a pod, so tests can SIGTERM or SIGKILL it. It listens on http.port=0: the
 * port its server chose is read from the line it logs once HTTP is up.
 */
public final class ServiceProcess implements AutoCloseable {
  /** AmberGarden's line once its HTTP server listens, with the port it listens on. */
  static final Pattern UP = Pattern.compile("Amber Garden is up on \\S+:(\\d+) ");

  private final Process process;
  private final Path log;

  /** -1 until the process has logged {@link #UP}. */
  private volatile int port = -1;

  private ServiceProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts a process on the shared real servers, learns its port from its log and waits until
   * /health/ready answers 200.
   */
  public static ServiceProcess start(String name, Map<String, String> config) throws IOException {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", RealServers.cassandraContactPoint());
    cfg.put("cassandra.keyspace", TestService.KEYSPACE);
    cfg.put("kafka.bootstrap-servers", RealServers.kafkaBootstrap());
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", "0");
    cfg.put("http.instances", "1");
    cfg.putAll(RealServers.objectStoreConfig());
    // one sweeper at a time on the shared keyspace: the image tests turn theirs on
    cfg.put("media.sweep.enabled", "false");
    cfg.putAll(config);
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                // C1 only: a test process needs less CPU to start and warm up on two shared cores
                // that also run Cassandra, Kafka and other instances
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
                "io.ambergarden.AmberGarden"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().keySet().removeIf(k -> k.startsWith("AMBER_"));
    cfg.forEach((k, v) -> pb.environment().put(ConfigLoader.envName(k), v));
    Path log =
        Files.createTempFile(
            Path.of(System.getProperty("java.io.tmpdir")), "amber-" + name + "-", ".log");
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    ServiceProcess sp = new ServiceProcess(pb.start(), log);
    try {
      sp.awaitReady(Duration.ofMinutes(3));
    } catch (RuntimeException e) {
      sp.process.destroyForcibly(); // never leave a process behind that no test will close
      throw e;
    }
    return sp;
  }

  private void awaitReady(Duration deadline) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long end = System.nanoTime() + deadline.toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "service process exited with " + process.exitValue() + "; log: " + tail());
      }
      if (port < 0) {
        port = upPort(logSoFar());
      }
      if (port > 0 && readyAnswers200(http)) {
        return;
      }
      // waiting on the child's readiness, polled with the process's own exit as the other condition
      try {
        process.waitFor(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException(
        "service process not ready within "
            + deadline
            + (port < 0 ? " (HTTP never up: no port logged)" : " on port " + port)
            + "; log: "
            + tail());
  }

  private boolean readyAnswers200(HttpClient http) {
    try {
      return http.send(
                  HttpRequest.newBuilder(uri("/health/ready"))
                      .timeout(Duration.ofSeconds(2))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false; // not answering yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The port in AmberGarden's {@link #UP} line of a log, or -1 when it has not logged it yet. */
  static int upPort(String logText) {
    Matcher m = UP.matcher(logText);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** The log so far; the child may be writing a character's bytes right now: never fails on it. */
  private String logSoFar() {
    try {
      return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** True while GET /health/ready answers 200. */
  public boolean isReady() {
    try {
      return TestService.send(
                  HttpRequest.newBuilder(uri("/health/ready"))
                      .timeout(Duration.ofSeconds(2))
                      .GET()
                      .build())
              .statusCode()
          == 200;
    } catch (RuntimeException e) {
      return false;
    }
  }

  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  /** The port the process's HTTP server chose (http.port=0), known once {@link #start} returns. */
  public int port() {
    return port;
  }

  public Process process() {
    return process;
  }

  /** SIGKILL: no shutdown hook, no drain, no final commit. */
  public void crash() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then waits for the exit; returns the exit code. */
  public int terminate(Duration deadline) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "service did not exit within " + deadline + " of SIGTERM; log: " + tail());
    }
    return process.exitValue();
  }

  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join(
          System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  public String logText() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
