package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.ApiRoutes;
import io.ambergarden.auth.HeldKeyReads;
import io.ambergarden.auth.Scope;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.web.images.ImageRoutes;
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
  private HttpVerticle http;
  private LiveConnections live;
  private int port;
  private final List<Socket> sockets = new ArrayList<>();

  private void start(Map<String, String> extra) throws Exception {
    vertx = Vertx.vertx();
    Map<String, String> cfg = new HashMap<>();
    cfg.put("ingest.mode", "direct");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", "0");
    cfg.put("http.instances", "1");
    cfg.put("live.enabled", "true");
    cfg.put("auth.key-cache.refresh", "2s");
    cfg.putAll(extra);
    AmberConfig config = ConfigLoader.load(Map.of(), new Properties(), cfg);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventParser parser = io.ambergarden.EventParsers.create(config, Clock.systemUTC());
    LocalCodec.registerAll(vertx);
    vertx
        .eventBus()
        .<PersistRequest>consumer(
            Addresses.WRITER_PERSIST.address(),
            msg -> msg.reply(new PersistResult(msg.body().events().size())));
    keys = new HeldKeyReads(config.access());
    budgets = HttpBudgets.of(config, registry);
    live = new LiveConnections(config.live().maxConnections(), registry);
    http =
        ApiRoutes.httpVerticle(
            config,
            parser,
            new HealthState(config.ingest().mode()),
            registry,
            new Cursor(new byte[32]),
            live,
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
  void threeHundredClientsThatHangUpDuringAuthenticationLeaveNoBudgetTaken() throws Exception {
    start(Map.of());
    String body = event("hang-up");
    hangUpDuringAuthentication(
        HANG_UPS,
        Set.of(Scope.EVENTS_WRITE),
        (i, key) -> {
          HangUp how = HangUp.values()[i % HangUp.values().length];
          long length = how == HangUp.HEADERS_ONLY ? DECLARED : body.length();
          String head =
              "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + key
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + length
                  + "\r\n\r\n";
          return switch (how) {
            case HEADERS_ONLY -> new Sent(head, false);
            case WHOLE_BODY -> new Sent(head + body, false);
            case RESET_MID_BODY -> new Sent(head + body.substring(0, body.length() / 2), true);
          };
        });

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

  @Test
  void imageUploadsWhoseClientsHangUpDuringAuthenticationHoldNoUploadSlot() throws Exception {
    start(Map.of());
    hangUpDuringAuthentication(
        20,
        Set.of(Scope.MEDIA_WRITE),
        (i, key) ->
            new Sent(
                "POST /api/v1/devices/cam-"
                    + i
                    + "/images HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + key
                    + "\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n",
                i % 2 == 0));
    // the upload deadline is media.orphan-grace / 2 (minutes): a held slot would show here
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(10))
        .until(() -> http.routes(ImageRoutes.class).uploadsInFlight() == 0);
  }

  @Test
  void liveFeedUpgradesWhoseClientsHangUpDuringAuthenticationHoldNoClientSlot() throws Exception {
    start(Map.of());
    hangUpDuringAuthentication(
        20,
        Set.of(Scope.LIVE_READ),
        (i, key) ->
            new Sent(
                "GET /api/v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + key
                    + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                i % 2 == 0));
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(10))
        .until(() -> live.open() == 0);
  }

  /** What one client sends before it leaves, and whether it resets rather than closes. */
  private record Sent(String text, boolean reset) {}

  private interface Client {
    Sent send(int index, String key);
  }

  /**
   * {@code count} clients, each with its own stale key, send their request and leave while their
   * key is being read; once the server has seen every connection close, the reads answer.
   */
  private void hangUpDuringAuthentication(int count, Set<Scope> scopes, Client client)
      throws Exception {
    List<String> stale = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String key = keys.mint(scopes);
      keys.warm(key).await(10, TimeUnit.SECONDS);
      stale.add(key);
    }
    // every key is now older than auth.key-cache.refresh: each request waits for a fresh read
    keys.advance(Duration.ofSeconds(3).toMillis());
    keys.hold();
    for (int i = 0; i < count; i++) {
      Sent sent = client.send(i, stale.get(i));
      Socket s = new Socket("127.0.0.1", port);
      sockets.add(s);
      OutputStream out = s.getOutputStream();
      out.write(sent.text().getBytes(StandardCharsets.UTF_8));
      out.flush();
      if (sent.reset()) {
        s.setSoLinger(true, 0);
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> keys.waiting() == count);
    for (Socket s : sockets) {
      s.close();
    }
    // the server has seen every connection go before any key read answers
    await().atMost(Duration.ofSeconds(30)).until(() -> budgets.connections().used() == 0);
    keys.releaseAll();
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
