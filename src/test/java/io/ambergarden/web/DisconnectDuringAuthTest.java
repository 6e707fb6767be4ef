package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.auth.HeldKeyReads;
import io.ambergarden.auth.Scope;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.EventLimits;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.query.Cursor;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * F17 at the HTTP edge, with the timing held exactly: the real HTTP verticle and router, and a key
 * store whose reads answer only when the test says so, after the client's connection has closed.
 */
class DisconnectDuringAuthTest {
  private static final int HANG_UPS = 300;
  private static final long DECLARED = 4L << 20;

  private Vertx vertx;
  private HttpBudgets budgets;
  private HeldKeyReads keys;
  private int port;
  private final List<Socket> sockets = new ArrayList<>();

  private void start(Map<String, String> extra) throws Exception {
    vertx = Vertx.vertx();
    Map<String, String> cfg = new HashMap<>();
    cfg.put("ingest.mode", "direct");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", "0");
    cfg.put("http.instances", "1");
    cfg.put("live.enabled", "false");
    cfg.put("auth.key-cache.refresh", "2s");
    cfg.putAll(extra);
    AmberConfig config = ConfigLoader.load(Map.of(), new Properties(), cfg);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventParser parser =
        new EventParser(
            EventLimits.defaults()
                .withBatchAndTime(
                    config.ingest().maxBatch(),
                    config.events().maxPayloadBytes(),
                    config.events().retention(),
                    config.events().futureSkew()),
            Clock.systemUTC());
    LocalCodec.registerAll(vertx);
    vertx
        .eventBus()
        .<PersistRequest>consumer(
            Addresses.WRITER_PERSIST,
            msg -> msg.reply(new PersistResult(msg.body().events().size())));
    keys = new HeldKeyReads(config.access());
    budgets = HttpBudgets.of(config, registry);
    HttpVerticle http =
        new HttpVerticle(
            config,
            parser,
            new HealthState(config.ingest().mode()),
            registry,
            new Cursor(new byte[32]),
            new LiveConnections(config.live().maxConnections(), registry),
            new AmberMeters(registry, config.kafka().topic()),
            budgets,
            keys.gatekeeper());
    vertx.deployVerticle(http).await(30, TimeUnit.SECONDS);
    port = http.actualPort();
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : sockets) {
      s.close();
    }
    if (vertx != null) {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** How a client leaves while its key is being checked. */
  private enum HangUp {
    /** Headers with a 4 MiB Content-Length, no body, then FIN. */
    HEADERS_ONLY,
    /** A whole small body, then FIN before the answer. */
    WHOLE_BODY,
    /** Half a small body, then a reset (SO_LINGER 0). */
    RESET_MID_BODY
  }

  @Test
  void testThreeHundredClientsThatHangUpDuringAuthenticationLeaveNoBudgetTaken() throws Exception {
    start(Map.of());
    List<String> stale = new ArrayList<>();
    for (int i = 0; i < HANG_UPS; i++) {
      String key = keys.mint(Set.of(Scope.EVENTS_WRITE));
      keys.warm(key).await(10, TimeUnit.SECONDS);
      stale.add(key);
    }
    // every key is now older than auth.key-cache.refresh: each request waits for a fresh read
    keys.advance(Duration.ofSeconds(3).toMillis());
    keys.hold();
    String body = event("hang-up");
    for (int i = 0; i < HANG_UPS; i++) {
      HangUp how = HangUp.values()[i % HangUp.values().length];
      Socket s = new Socket("127.0.0.1", port);
      sockets.add(s);
      long length = how == HangUp.HEADERS_ONLY ? DECLARED : body.length();
      String head =
          "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              + stale.get(i)
              + "\r\nContent-Type: application/json\r\nContent-Length: "
              + length
              + "\r\n\r\n";
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      switch (how) {
        case HEADERS_ONLY -> {}
        case WHOLE_BODY -> out.write(body.getBytes(StandardCharsets.UTF_8));
        case RESET_MID_BODY -> {
          out.write(body.substring(0, body.length() / 2).getBytes(StandardCharsets.UTF_8));
          s.setSoLinger(true, 0);
        }
      }
      out.flush();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> keys.waiting() == HANG_UPS);
    for (Socket s : sockets) {
      s.close();
    }
    // the server has seen every connection go before any key read answers
    await().atMost(Duration.ofSeconds(30)).until(() -> budgets.connections().used() == 0);
    keys.releaseAll();

    HttpResponse<String> after = post(keys.mint(Set.of(Scope.EVENTS_WRITE)), event("after"));
    assertThat(after.statusCode()).as(after.body()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(budgets.ingestRequests().used()).as("ingest requests in flight").isZero();
              assertThat(budgets.ingestBytes().used()).as("ingest bytes in flight").isZero();
            });
  }

  private HttpResponse<String> post(String key, String body) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/events"))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String event(String device) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + (System.currentTimeMillis() - 60_000)
        + ",\"eventId\":\"e-"
        + System.nanoTime()
        + "\",\"code\":200}";
  }
}
