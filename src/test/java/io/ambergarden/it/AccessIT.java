package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.auth.Scope;
import io.ambergarden.auth.TestJwts;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may do what, against the real servers and two service instances: every scope and device rule
 * both ways, revocation seen by the other instance within 5 s, JWTs (valid, expired, tampered,
 * alg=none), single-use tickets, the WebSocket without credentials, rate limits, CORS and the
 * management port.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class AccessIT {
  /** A device no test writes: an authorized read of it is exactly a 404. */
  private static final String NEVER_WRITTEN =
      "/api/v1/devices/M-unwritten-" + UUID.randomUUID() + "/latest";

  private static final KeyPair JWT_KEY = TestJwts.rsa();
  private static TestService a;
  private static TestService b;
  private static int managementPort;

  @BeforeAll
  static void startTwoInstances() throws Exception {
    Path pem = Files.createTempFile("access-it-", ".pem");
    Files.writeString(pem, TestJwts.publicPem(JWT_KEY));
    pem.toFile().deleteOnExit();
    Map<String, String> cfg = new HashMap<>();
    cfg.put("ingest.mode", "direct");
    cfg.put("kafka.consumer.enabled", "false");
    cfg.put("auth.key-cache.refresh", "1s");
    cfg.put("auth.jwt.public-key-file", pem.toString());
    cfg.put("auth.jwt.issuer", TestJwts.ISSUER);
    cfg.put("auth.jwt.audience", TestJwts.AUDIENCE);
    cfg.put("auth.jwt.leeway", "0s");
    cfg.put("auth.jwt.fleet-wide-scopes", "live:read");
    cfg.put("http.cors.allowed-origins", "https://ops.example.test");
    // port 0: bound at once by the server, so no other process can take it meanwhile
    a = TestService.start(with(cfg, "http.management-port", "0"));
    managementPort = a.app().managementPort();
    b = TestService.start(cfg);
  }

  @AfterAll
  static void stop() {
    if (b != null) {
      b.close();
    }
    if (a != null) {
      a.close();
    }
  }

  private static Map<String, String> with(Map<String, String> base, String key, String value) {
    Map<String, String> m = new HashMap<>(base);
    m.put(key, value);
    return m;
  }

  private static HttpResponse<String> as(String credential, String method, URI uri, String body) {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      r.header("Content-Type", "application/json");
    }
    if (credential != null) {
      r.header("Authorization", "Bearer " + credential);
    }
    return TestService.sendAs(r.build());
  }

  private static HttpResponse<String> get(String credential, TestService s, String path) {
    return as(credential, "GET", s.uri(path), null);
  }

  private static String event(String device) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + System.currentTimeMillis()
        + ",\"code\":200}";
  }

  private static String key(Scope... scopes) {
    return TestKeys.create("access-it", Set.of(scopes), List.of(), 0);
  }

  @Test
  void eachScopeOpensItsRoutesAndNothingElse() {
    String device = "acc-" + UUID.randomUUID().toString().substring(0, 8);
    Map<Scope, String> keys = new HashMap<>();
    for (Scope s : Scope.values()) {
      keys.put(s, key(s));
    }
    // what each route answers to a key with its scope (allowed: never 401/403) and to one without
    record Probe(Scope scope, String method, String path, String body) {}
    List<Probe> probes =
        List.of(
            new Probe(Scope.EVENTS_WRITE, "POST", "/api/v1/events", event(device)),
            new Probe(Scope.EVENTS_READ, "GET", "/api/v1/devices/" + device + "/events", null),
            new Probe(Scope.EVENTS_READ, "GET", "/api/v1/stats/abnormal", null),
            new Probe(Scope.LIVE_READ, "POST", "/api/v1/live/tickets", null),
            new Probe(Scope.MEDIA_WRITE, "POST", "/api/v1/devices/" + device + "/images", "{}"),
            new Probe(Scope.MEDIA_READ, "GET", "/api/v1/tags/site/images", null),
            new Probe(Scope.ADMIN, "GET", "/api/v1/admin/keys?limit=1", null),
            new Probe(Scope.ADMIN, "GET", "/metrics", null));
    for (Probe p : probes) {
      HttpResponse<String> allowed = as(keys.get(p.scope), p.method, a.uri(p.path), p.body);
      assertThat(allowed.statusCode())
          .as("%s %s with %s: %s", p.method, p.path, p.scope.text(), allowed.body())
          .isNotIn(401, 403)
          .isLessThan(500);
      for (Scope other : Scope.values()) {
        if (other == p.scope) {
          continue;
        }
        HttpResponse<String> refused = as(keys.get(other), p.method, a.uri(p.path), p.body);
        assertThat(refused.statusCode())
            .as("%s %s with only %s", p.method, p.path, other.text())
            .isEqualTo(403);
        assertThat(refused.headers().firstValue("Content-Type"))
            .hasValue("application/problem+json");
        assertThat(refused.body()).contains(p.scope.text());
      }
    }
    // the live feed: live:read opens it, events:read does not
    int port = a.port();
    assertThat(upgradeStatus(port, "/api/v1/live?devices=" + device, keys.get(Scope.LIVE_READ)))
        .contains("101");
    assertThat(upgradeStatus(port, "/api/v1/live?devices=" + device, keys.get(Scope.EVENTS_READ)))
        .contains("403");
  }

  @Test
  void aDeviceBoundKeyReadsAndWritesOnlyItsDevicesBatchesIncluded() {
    String tag = UUID.randomUUID().toString().substring(0, 6);
    String mine = "M-" + tag;
    String foreign = "N-" + tag;
    String bound =
        TestKeys.create(
            "meter",
            Set.of(Scope.EVENTS_WRITE, Scope.EVENTS_READ, Scope.LIVE_READ),
            List.of("M-*"),
            0);
    URI events = a.uri("/api/v1/events");
    assertThat(as(bound, "POST", events, event(mine)).statusCode()).isEqualTo(202);
    assertThat(as(bound, "POST", events, event(foreign)).statusCode()).isEqualTo(403);
    // one foreign event in a batch: 403 naming it, and nothing of the batch is stored
    String batchDevice = "M-b" + tag;
    HttpResponse<String> batch =
        as(bound, "POST", events, "[" + event(batchDevice) + "," + event(foreign) + "]");
    assertThat(batch.statusCode()).isEqualTo(403);
    JsonObject problem = new JsonObject(batch.body());
    assertThat(problem.getJsonArray("errors").getJsonObject(0).getInteger("index")).isEqualTo(1);
    assertThat(problem.getJsonArray("errors").getJsonObject(0).getString("field"))
        .isEqualTo("deviceId");
    assertThat(items(a.get("/api/v1/devices/" + batchDevice + "/events").body())).isEmpty();

    assertThat(get(bound, b, "/api/v1/devices/" + mine + "/latest").statusCode()).isEqualTo(200);
    assertThat(get(bound, b, "/api/v1/devices/" + foreign + "/latest").statusCode()).isEqualTo(403);
    assertThat(get(bound, b, "/api/v1/devices/" + foreign + "/events").statusCode()).isEqualTo(403);
    // routes that span devices are closed to a bound key
    assertThat(get(bound, b, "/api/v1/device-types/charger/events").statusCode()).isEqualTo(403);
    assertThat(get(bound, b, "/api/v1/stats/status").statusCode()).isEqualTo(403);
    // the live feed: only with devices=, all of them its own
    int port = b.port();
    assertThat(upgradeStatus(port, "/api/v1/live?devices=" + mine, bound)).contains("101");
    assertThat(upgradeStatus(port, "/api/v1/live?devices=" + mine + "," + foreign, bound))
        .contains("403");
    assertThat(upgradeStatus(port, "/api/v1/live?types=charger", bound)).contains("403");
    // an unbound key reads the foreign device
    assertThat(a.get("/api/v1/devices/" + foreign + "/events").statusCode()).isEqualTo(200);
  }

  @Test
  void aKeyRevokedOnOneInstanceIsRefusedOnTheOtherWithinFiveSeconds() throws Exception {
    HttpResponse<String> created =
        a.post(
            "/api/v1/admin/keys",
            "application/json",
            "{\"name\":\"to revoke\",\"scopes\":[\"events:read\",\"live:read\"]}");
    assertThat(created.statusCode()).isEqualTo(201);
    JsonObject k = new JsonObject(created.body());
    String key = k.getString("key");
    assertThat(created.headers().firstValue("Cache-Control")).hasValue("no-store");
    assertThat(get(key, b, NEVER_WRITTEN).statusCode()).isEqualTo(404);
    // listing shows it, without the secret
    String listing = a.get("/api/v1/admin/keys?limit=1000").body();
    assertThat(listing).contains(k.getString("id")).doesNotContain(key);
    try (LiveClient socket = LiveClient.connect(b.port(), "codes=1", "Bearer " + key)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> socket.sawType("live"));

      HttpResponse<String> revoked =
          TestService.send(
              HttpRequest.newBuilder(a.uri("/api/v1/admin/keys/" + k.getString("id")))
                  .DELETE()
                  .build());
      long t0 = System.nanoTime();
      assertThat(revoked.statusCode()).isEqualTo(204);
      assertThat(get(key, a, NEVER_WRITTEN).statusCode())
          .as("refused at once where it was revoked")
          .isEqualTo(401);
      await()
          .pollInterval(Duration.ofMillis(50))
          .atMost(Duration.ofSeconds(5))
          .until(() -> get(key, b, NEVER_WRITTEN).statusCode() == 401);
      long refusedAfterMs = (System.nanoTime() - t0) / 1_000_000;
      ItLog.println("revoked key refused on the other instance after " + refusedAfterMs + " ms");
      // its open socket is closed with the policy code too
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Integer.valueOf(1008).equals(socket.closeCode()));
    }
    HttpResponse<String> again =
        TestService.send(
            HttpRequest.newBuilder(a.uri("/api/v1/admin/keys/" + k.getString("id")))
                .DELETE()
                .build());
    assertThat(again.statusCode()).isEqualTo(204);
    HttpResponse<String> unknown =
        TestService.send(
            HttpRequest.newBuilder(a.uri("/api/v1/admin/keys/0123456789abcdef")).DELETE().build());
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  @Test
  void missingMalformedAndUnknownCredentialsAre401WithAChallenge() {
    String known = key(Scope.EVENTS_READ);
    String unknown = "amb_0000000000000000_" + known.substring(21);
    String tampered = known.substring(0, known.length() - 2) + "xx";
    for (String credential : new String[] {null, "nonsense", unknown, tampered}) {
      HttpResponse<String> r = get(credential, a, NEVER_WRITTEN);
      assertThat(r.statusCode()).as("credential %s", credential).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).get().asString().startsWith("Bearer");
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }
    HttpResponse<String> viaHeader =
        TestService.sendAs(
            HttpRequest.newBuilder(a.uri(NEVER_WRITTEN)).header("X-API-Key", known).GET().build());
    assertThat(viaHeader.statusCode()).isEqualTo(404);
    // health and the dashboard stay open
    assertThat(get(null, a, "/health/live").statusCode()).isEqualTo(200);
    assertThat(get(null, a, "/").statusCode()).isEqualTo(200);
  }

  @Test
  void jwtsAreCheckedForSignatureIssuerAudienceAndExpiry() {
    String path = NEVER_WRITTEN;
    JsonObject claims = TestJwts.claims("jwt-it", "events:read").put("devices", "M-*");
    String good = TestJwts.rs256(JWT_KEY.getPrivate(), claims, null);
    assertThat(get(good, a, path).statusCode()).isEqualTo(404);
    assertThat(get(good, b, path).statusCode()).isEqualTo(404);

    long now = System.currentTimeMillis() / 1000;
    String expired = TestJwts.rs256(JWT_KEY.getPrivate(), claims.copy().put("exp", now - 5), null);
    String[] parts = good.split("\\.");
    String tampered =
        parts[0]
            + "."
            + java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims.copy().put("scope", "events:read admin").encode().getBytes())
            + "."
            + parts[2];
    String none = TestJwts.none(claims.copy().put("scope", "admin"));
    String confused = TestJwts.hs256WithPublicKey(JWT_KEY, claims.copy().put("scope", "admin"));
    String otherKey = TestJwts.rs256(TestJwts.rsa().getPrivate(), claims, null);
    String wrongAudience =
        TestJwts.rs256(JWT_KEY.getPrivate(), claims.copy().put("aud", "other"), null);
    // no devices claim, and events:read is not fleet-wide here (live:read is)
    String noDevices =
        TestJwts.rs256(JWT_KEY.getPrivate(), TestJwts.claims("jwt-it", "events:read"), null);
    for (String bad :
        List.of(expired, tampered, none, confused, otherKey, wrongAudience, noDevices)) {
      HttpResponse<String> r = get(bad, a, path);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
    }
    assertThat(get(tampered, a, "/metrics").statusCode()).isEqualTo(401);
  }

  @Test
  void aTicketOpensOneSocketOnceOnAnyInstance() throws Exception {
    String reader = key(Scope.LIVE_READ);
    HttpResponse<String> issued = as(reader, "POST", a.uri("/api/v1/live/tickets"), null);
    assertThat(issued.statusCode()).isEqualTo(201);
    String ticket = new JsonObject(issued.body()).getString("ticket");
    assertThat(new JsonObject(issued.body()).getLong("expiresAt"))
        .isBetween(System.currentTimeMillis(), System.currentTimeMillis() + 61_000);
    String path = "/api/v1/live?codes=1&ticket=" + ticket;
    String origin = "http://127.0.0.1:" + b.port();
    try (Socket first = LiveClient.rawUpgrade(b.port(), path, origin, null)) {
      assertThat(LiveClient.statusLine(first)).contains("101");
    }
    try (Socket second = LiveClient.rawUpgrade(a.port(), path, null, null)) {
      assertThat(LiveClient.statusLine(second)).contains("401");
    }
    try (Socket forged =
        LiveClient.rawUpgrade(
            a.port(),
            "/api/v1/live?ticket=" + "A".repeat(43),
            "http://127.0.0.1:" + a.port(),
            null)) {
      assertThat(LiveClient.statusLine(forged)).contains("401");
    }
  }

  @Test
  void aWebSocketWithoutCredentialsIsRefused() throws Exception {
    int port = a.port();
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live", null, null)) {
      assertThat(LiveClient.statusLine(s)).contains("401");
    }
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live", "http://127.0.0.1:" + port, null)) {
      assertThat(LiveClient.statusLine(s)).contains("401");
    }
  }

  @Test
  void aSocketIsClosedWithThePolicyCodeWhenItsTokenExpires() {
    long exp = System.currentTimeMillis() / 1000 + 3;
    String shortLived =
        TestJwts.rs256(
            JWT_KEY.getPrivate(), TestJwts.claims("short", "live:read").put("exp", exp), null);
    try (LiveClient socket = LiveClient.connect(a.port(), "codes=1", "Bearer " + shortLived)) {
      await().atMost(Duration.ofSeconds(5)).until(() -> socket.sawType("live"));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Integer.valueOf(1008).equals(socket.closeCode()));
      assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(exp * 1000);
    }
  }

  @Test
  void overItsRateAKeyGets429WithRetryAfterThenIsAllowedAgain() {
    String slow = TestKeys.create("slow", Set.of(Scope.EVENTS_READ), List.of(), 2);
    String path = NEVER_WRITTEN;
    HttpResponse<String> limited = null;
    for (int i = 0; i < 10 && limited == null; i++) {
      HttpResponse<String> r = get(slow, b, path);
      if (r.statusCode() == 429) {
        limited = r;
      }
    }
    assertThat(limited).as("a 429 within 10 quick requests at 2/s").isNotNull();
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(limited.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(new JsonObject(limited.body()).getInteger("status")).isEqualTo(429);
    // another key is not slowed by it
    assertThat(get(TestKeys.admin(), b, path).statusCode()).isEqualTo(404);
    await()
        .pollInterval(Duration.ofMillis(100))
        .atMost(Duration.ofSeconds(3))
        .until(() -> get(slow, b, path).statusCode() != 429);
  }

  @Test
  void metricsNeedAdminOnTheApiPortAndNothingOnTheManagementPort() {
    assertThat(get(null, a, "/metrics").statusCode()).isEqualTo(401);
    assertThat(get(key(Scope.EVENTS_READ), a, "/metrics").statusCode()).isEqualTo(403);
    assertThat(a.get("/metrics").body()).contains("amber_");
    HttpResponse<String> scrape =
        TestService.sendAs(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/metrics"))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains("amber_");
    HttpResponse<String> noApi =
        TestService.sendAs(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + managementPort + "/api/v1/stats/status"))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    assertThat(noApi.statusCode()).isEqualTo(404);
  }

  @Test
  void corsPreflightIsAnsweredForAllowedOriginsOnly() {
    HttpResponse<String> allowed =
        TestService.sendAs(
            HttpRequest.newBuilder(a.uri("/api/v1/events"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://ops.example.test")
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization,content-type")
                .build());
    assertThat(allowed.statusCode()).isEqualTo(204);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin"))
        .hasValue("https://ops.example.test");
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Headers").orElse(""))
        .containsIgnoringCase("Authorization");
    HttpResponse<String> refused =
        TestService.sendAs(
            HttpRequest.newBuilder(a.uri("/api/v1/events"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://evil.example.test")
                .header("Access-Control-Request-Method", "POST")
                .build());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    // an actual cross-origin read from the allowed origin gets the header
    HttpResponse<String> read =
        TestService.send(
            HttpRequest.newBuilder(a.uri("/api/v1/stats/abnormal"))
                .header("Origin", "https://ops.example.test")
                .GET()
                .build());
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.headers().firstValue("Access-Control-Allow-Origin"))
        .hasValue("https://ops.example.test");
  }

  private static String upgradeStatus(int port, String path, String key) {
    try (Socket s = LiveClient.rawUpgrade(port, path, null, "Bearer " + key)) {
      return LiveClient.statusLine(s);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonArray items(String body) {
    return new JsonObject(body).getJsonArray("items");
  }
}
