package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.ApiRoutes;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.TestJwts;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.EventLimits;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JWKS endpoint is down when the service starts: the service starts anyway, JWTs get 503 with
 * Retry-After as a problem, and once the endpoint answers (on the same port, later) the background
 * retries load it and the same token is accepted.
 */
@Timeout(120)
class JwksAtBootTest {
  private static final KeyPair RSA = TestJwts.rsa();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private Vertx vertx;
  private PrometheusMeterRegistry registry;

  @AfterEach
  void stop() throws Exception {
    if (vertx != null) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    if (registry != null) {
      registry.close();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void aServiceWhoseJwksIsDownStartsAnswers503ToJwtsAndAcceptsThemOnceItLoads() throws Exception {
    // the JWKS URL is configured before its server exists: this one port has to be chosen first
    int jwksPort = freePort(); // nothing listens there yet: connections are refused
    AmberConfig config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of(
                "ingest.mode",
                "direct",
                "http.host",
                "127.0.0.1",
                "http.port",
                "0",
                "auth.enabled",
                "true",
                "auth.jwt.jwks-url",
                "http://127.0.0.1:" + jwksPort + "/jwks.json",
                "auth.jwt.issuer",
                TestJwts.ISSUER,
                "auth.jwt.audience",
                TestJwts.AUDIENCE));
    vertx = Vertx.vertx();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LocalCodec.registerAll(vertx);
    Gatekeeper gate = Gatekeeper.start(vertx, config, null).await(30, TimeUnit.SECONDS);
    HttpVerticle http =
        ApiRoutes.httpVerticle(
            config,
            new EventParser(EventLimits.defaults(), Clock.systemUTC()),
            new HealthState(config.ingest().mode()),
            registry,
            new Cursor(new byte[32]),
            new LiveConnections(10, registry),
            new AmberMeters(registry, "t"),
            HttpBudgets.of(config, registry),
            gate);
    vertx.deployVerticle(http).await(30, TimeUnit.SECONDS);
    int port = http.actualPort(); // chosen by the server at listen
    String admin = TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("ops", "admin"), "k1");

    HttpResponse<String> refused = metrics(port, admin);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue(Problems.CONTENT_TYPE);
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(new JsonObject(refused.body()).getString("detail")).contains("JWKS");
    assertThat(metrics(port, null).statusCode()).as("no credential is still a 401").isEqualTo(401);

    HttpServer jwks =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.response()
                        .putHeader("Content-Type", "application/json")
                        .end(
                            new JsonObject()
                                .put("keys", new JsonArray().add(TestJwts.jwk(RSA, "k1")))
                                .encode()))
            .listen(jwksPort, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    long up = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> metrics(port, admin).statusCode() == 200);
    System.out.printf(
        "JWTs accepted %.1f s after the JWKS endpoint came up%n", (System.nanoTime() - up) / 1e9);
    String forged =
        TestJwts.rs256(TestJwts.rsa().getPrivate(), TestJwts.claims("x", "admin"), "k1");
    assertThat(metrics(port, forged).statusCode()).as("the loaded keys are checked").isEqualTo(401);
    jwks.close();
  }

  private HttpResponse<String> metrics(int port, String bearer) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .timeout(Duration.ofSeconds(10));
    if (bearer != null) {
      r.header("Authorization", "Bearer " + bearer);
    }
    return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }
}
