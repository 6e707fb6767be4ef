package io.ambergarden.it;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.AmberGarden;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.localrt.RealServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One service instance inside the test JVM, on the shared real servers, with its own topics,
 * consumer group and HTTP port so test classes never see each other's records.
 */
public final class TestService implements AutoCloseable {
  public static final String KEYSPACE = "amber_it";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final AmberGarden app;
  private final AmberConfig config;
  private boolean closed;

  private TestService(AmberGarden app) {
    this.app = app;
    this.config = app.config();
  }

  /**
   * Short rollup intervals: late marks due within 2 s, 1 s buckets processed 5 s after they end, so
   * a closed hour is reconciled (rollups and exact counts) within seconds of its events.
   */
  public static Map<String, String> fastRollups() {
    return Map.of(
        "rollup.scan-interval", "500ms",
        "rollup.lease-ttl", "5s",
        "rollup.mark-bucket", "1s",
        "rollup.mark-safety", "5s",
        "rollup.late-window", "2s",
        "writer.request-timeout", "5s");
  }

  /** Starts an instance with fresh topics; {@code overrides} are config keys. */
  public static TestService start(Map<String, String> overrides) {
    String topic = "it-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", RealServers.cassandraContactPoint());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("kafka.bootstrap-servers", RealServers.kafkaBootstrap());
    cfg.put("kafka.topic", topic);
    cfg.put("kafka.dlq-topic", topic + ".dlq");
    cfg.put("kafka.group-id", topic + "-group");
    cfg.put("kafka.topic-partitions", "2");
    cfg.put("kafka.consumer.commit-interval", "200ms");
    // the server picks a free port when it listens; port() asks it which
    cfg.put("http.port", "0");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.instances", "1");
    cfg.putAll(RealServers.objectStoreConfig());
    // one sweeper at a time on the shared keyspace: the image tests turn theirs on
    cfg.put("media.sweep.enabled", "false");
    cfg.putAll(overrides);
    AmberConfig config = ConfigLoader.load(Map.of(), new Properties(), cfg);
    try {
      TestService started = new TestService(AmberGarden.start(config).await(120, TimeUnit.SECONDS));
      // the harness's admin key must be known in the keyspace this instance reads keys from (on the
      // shared node; a test that points the service elsewhere brings its own keys)
      if (config.access().enabled() && !overrides.containsKey("cassandra.contact-points")) {
        TestKeys.adminIn(config.cassandra().keyspace());
      }
      return started;
    } catch (Exception e) {
      throw new IllegalStateException("service did not start", e);
    }
  }

  public AmberGarden app() {
    return app;
  }

  public AmberConfig config() {
    return config;
  }

  /** The value of a counter of this instance's meters (0 when it was never registered). */
  public double counter(String name, String... tags) {
    var c = app.registry().find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  /** Events this instance wrote from Kafka (each write of a redelivered record counts again). */
  public double kafkaEventsWritten() {
    return counter("amber.ingest.events", "path", "kafka");
  }

  public String topic() {
    return config.kafka().topic();
  }

  public String dlqTopic() {
    return config.kafka().dlqTopic();
  }

  /** The port this instance's HTTP server listens on (chosen by the server: http.port is 0). */
  public int port() {
    return app.httpPort();
  }

  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
  }

  public HttpResponse<String> post(String path, String contentType, String body) {
    return sendToThis(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  public HttpResponse<String> postEvents(String json) {
    return post("/api/v1/events", "application/json", json);
  }

  public HttpResponse<String> get(String pathAndQuery) {
    return sendToThis(HttpRequest.newBuilder(uri(pathAndQuery)).GET().build());
  }

  /** With the admin key when this instance checks credentials, as it is otherwise. */
  private HttpResponse<String> sendToThis(HttpRequest request) {
    // start() stored the key where this instance reads keys from, which may not be the shared
    // keyspace
    return config.access().enabled() ? send(request, TestKeys.adminText()) : sendAs(request);
  }

  /** Sends with the run's admin key unless the request carries credentials of its own. */
  public static HttpResponse<String> send(HttpRequest request) {
    return send(request, TestKeys.admin());
  }

  private static HttpResponse<String> send(HttpRequest request, String adminKey) {
    return sendAs(
        request.headers().firstValue("Authorization").isPresent()
                || request.headers().firstValue("X-API-Key").isPresent()
            ? request
            : HttpRequest.newBuilder(request, (name, value) -> true)
                .header("Authorization", "Bearer " + adminKey)
                .build());
  }

  /** Sends exactly this request, credentials or none. */
  public static HttpResponse<String> sendAs(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Drops a keyspace of a test's own (a fresh start for tests whose figures must describe only
   * their own rows); DDL waits for flushes and schema pushes, slower than a read on a busy node.
   */
  public static void dropKeyspace(String keyspace) {
    try (CqlSession cql = cql()) {
      cql.execute(
          com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                  "DROP KEYSPACE IF EXISTS " + keyspace)
              .setTimeout(Duration.ofMinutes(1)));
    }
  }

  /** A plain driver session for assertions on the tables. */
  public static CqlSession cql() {
    return RealServers.runtime().cassandra().openSession(Duration.ofSeconds(10));
  }

  /** Stops the instance; a second call does nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      app.stop().await(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("service did not stop", e);
    }
  }
}
