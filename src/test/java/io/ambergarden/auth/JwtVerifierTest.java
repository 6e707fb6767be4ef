package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.SecurityConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.NoSuchKeyIdException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every way a JWT is refused, and the ways it is accepted, against the real vertx-auth-jwt. */
class JwtVerifierTest {
  private static final KeyPair RSA = TestJwts.rsa();
  private static final KeyPair OTHER = TestJwts.rsa();
  private static Vertx vertx;

  @TempDir static Path dir;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stopVertx() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static SecurityConfig.Jwt pem(KeyPair kp, String... fleetWideScopes) {
    return new SecurityConfig.Jwt(
        TestJwts.writePublicPem(kp, dir).toString(),
        "",
        Duration.ofMinutes(10),
        TestJwts.ISSUER,
        TestJwts.AUDIENCE,
        Duration.ofSeconds(30),
        List.of(fleetWideScopes));
  }

  private static JwtVerifier verifier(SecurityConfig.Jwt cfg) throws Exception {
    return JwtVerifier.start(vertx, cfg, 50).await(10, TimeUnit.SECONDS);
  }

  /** A JWKS-based configuration on the test's JWKS server, refreshed every 10 min, no leeway. */
  private static SecurityConfig.Jwt jwksConfig(HttpServer jwks) {
    return new SecurityConfig.Jwt(
        "",
        "http://127.0.0.1:" + jwks.actualPort() + "/jwks.json",
        Duration.ofMinutes(10),
        TestJwts.ISSUER,
        TestJwts.AUDIENCE,
        Duration.ZERO,
        List.of());
  }

  private static Future<Principal> verify(JwtVerifier v, String token) {
    try {
      return Future.succeededFuture(v.verify(token).await(10, TimeUnit.SECONDS));
    } catch (Exception e) {
      return Future.failedFuture(e);
    }
  }

  @Test
  void aValidRs256TokenGivesItsSubjectScopesAndDevices() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    JsonObject claims =
        TestJwts.claims("meter-fleet", "events:write live:read unknown:x")
            .put("devices", new JsonArray().add("M-*"));
    Principal p = verify(v, TestJwts.rs256(RSA.getPrivate(), claims, null)).result();
    assertThat(p.id()).isEqualTo("meter-fleet");
    assertThat(p.kind()).isEqualTo(Principal.Kind.JWT);
    assertThat(p.scopes()).containsExactlyInAnyOrder(Scope.EVENTS_WRITE, Scope.LIVE_READ);
    assertThat(p.devices().allows("M-1")).isTrue();
    assertThat(p.devices().allows("N-1")).isFalse();
    assertThat(p.expiresAtMillis()).isEqualTo(claims.getLong("exp") * 1000);
    assertThat(p.ratePerSecond()).isEqualTo(50);
  }

  @Test
  void aTokenThatNamesNoDevicesIsRefusedUnlessAllItsScopesAreFleetWide() throws Exception {
    JwtVerifier strict = verifier(pem(RSA));
    JwtVerifier readsFleetWide = verifier(pem(RSA, "events:read", "live:read"));
    for (Object noDevices : Arrays.asList(null, new JsonArray(), "", "  ")) {
      JsonObject claims = TestJwts.claims("dashboard", "events:read live:read");
      if (noDevices != null) {
        claims.put("devices", noDevices);
      }
      String token = TestJwts.rs256(RSA.getPrivate(), claims, null);
      assertThat(verify(strict, token).cause())
          .as("devices %s, no fleet-wide scopes", noDevices)
          .hasMessageContaining("names no devices");
      Future<Principal> fleet = verify(readsFleetWide, token);
      assertThat(fleet.succeeded()).as("devices %s: %s", noDevices, fleet.cause()).isTrue();
      assertThat(fleet.result().devices().allows("any-device")).isTrue();
    }
    String alsoWrites =
        TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("s", "events:read events:write"), null);
    assertThat(verify(readsFleetWide, alsoWrites).cause())
        .as("one scope that is not fleet-wide")
        .hasMessageContaining("auth.jwt.fleet-wide-scopes");
    String noScopes = TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("s", "unknown:x"), null);
    assertThat(verify(readsFleetWide, noScopes).failed()).isTrue();
    JsonObject bound = TestJwts.claims("s", "events:read").put("devices", "M-1 M-2");
    Principal p = verify(readsFleetWide, TestJwts.rs256(RSA.getPrivate(), bound, null)).result();
    assertThat(p.devices().patterns())
        .as("a devices claim still binds")
        .containsExactly("M-1", "M-2");
  }

  @Test
  void anAdminTokenWithoutDevicesReachesEveryDevice() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    Principal p =
        verify(
                v,
                TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("ops", "admin events:read"), null))
            .result();
    assertThat(p.devices().bound()).isFalse();
  }

  @Test
  void aWronglyTypedDevicesClaimIsRefusedEvenForAdmin() throws Exception {
    JwtVerifier v = verifier(pem(RSA, "events:read"));
    for (Object wrong :
        List.of(
            42,
            true,
            new JsonObject().put("id", "M-1"),
            new JsonArray().add(1),
            new JsonArray().add("M-1").addNull(),
            new JsonArray().add("M-1").add(new JsonArray().add("M-2")),
            new JsonArray().add("*"))) {
      for (String scope : List.of("admin", "events:read")) {
        JsonObject claims = TestJwts.claims("s", scope).put("devices", wrong);
        assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), claims, null)).cause())
            .as("devices %s with %s", wrong, scope)
            .hasMessageContaining("devices claim");
      }
    }
  }

  @Test
  void anUnknownFleetWideScopeStopsStartupNamingTheKey() {
    Future<JwtVerifier> started = JwtVerifier.start(vertx, pem(RSA, "events:reed"), 50);
    assertThat(started.failed()).isTrue();
    assertThat(started.cause())
        .hasMessageContaining("auth.jwt.fleet-wide-scopes")
        .hasMessageContaining("events:reed");
  }

  @Test
  void scpAsAnArrayIsReadToo() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    JsonObject claims = TestJwts.claims("svc", null);
    claims.remove("scope");
    claims.put("scp", new JsonArray().add("admin"));
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), claims, null)).result().scopes())
        .containsExactly(Scope.ADMIN);
  }

  @Test
  void anEs256KeyVerifiesEs256Tokens() throws Exception {
    KeyPair ec = TestJwts.ec();
    JwtVerifier v = verifier(pem(ec));
    Future<Principal> p =
        verify(
            v,
            TestJwts.es256(
                ec.getPrivate(), TestJwts.claims("e", "events:read").put("devices", "M-1")));
    assertThat(p.succeeded()).as("%s", p.cause()).isTrue();
  }

  @Test
  void anExpiredTokenIsRefusedButTheLeewayIsHonoured() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    long now = System.currentTimeMillis() / 1000;
    JsonObject expired = TestJwts.claims("s", "events:read").put("exp", now - 120);
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), expired, null)).cause())
        .hasMessageContaining("expired");
    JsonObject withinLeeway =
        TestJwts.claims("s", "events:read").put("exp", now - 10).put("devices", "M-1");
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), withinLeeway, null)).succeeded())
        .isTrue();
  }

  @Test
  void aTamperedTokenIsRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    String token = TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("s", "events:read"), null);
    String[] parts = token.split("\\.");
    String forged =
        parts[0]
            + "."
            + TestJwts.b64(TestJwts.claims("s", "events:read admin").encode())
            + "."
            + parts[2];
    assertThat(verify(v, forged).failed()).isTrue();
    assertThat(verify(v, forged).cause()).hasMessageContaining("Signature");
  }

  @Test
  void aTokenSignedByAnotherKeyIsRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    assertThat(
            verify(v, TestJwts.rs256(OTHER.getPrivate(), TestJwts.claims("s", "admin"), null))
                .failed())
        .isTrue();
  }

  @Test
  void algNoneIsRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    String none = TestJwts.none(TestJwts.claims("s", "admin"));
    assertThat(verify(v, none).failed()).isTrue();
    assertThat(verify(v, none.substring(0, none.length() - 1)).failed())
        .as("without the trailing dot")
        .isTrue();
  }

  @Test
  void hmacSignedWithThePublicKeyIsRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    assertThat(verify(v, TestJwts.hs256WithPublicKey(RSA, TestJwts.claims("s", "admin"))).failed())
        .isTrue();
  }

  @Test
  void wrongIssuerWrongAudienceNoExpAndNoSubAreRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    JsonObject iss = TestJwts.claims("s", "admin").put("iss", "https://evil.test");
    JsonObject aud = TestJwts.claims("s", "admin").put("aud", "someone-else");
    JsonObject noExp = TestJwts.claims("s", "admin");
    noExp.remove("exp");
    JsonObject noSub = TestJwts.claims("s", "admin");
    noSub.remove("sub");
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), iss, null)).cause())
        .hasMessageContaining("issuer");
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), aud, null)).cause())
        .hasMessageContaining("audience");
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), noExp, null)).cause())
        .hasMessageContaining("exp");
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), noSub, null)).cause())
        .hasMessageContaining("sub");
  }

  @Test
  void aFutureNotBeforeIsRefused() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    JsonObject nbf =
        TestJwts.claims("s", "admin").put("nbf", System.currentTimeMillis() / 1000 + 600);
    assertThat(verify(v, TestJwts.rs256(RSA.getPrivate(), nbf, null)).failed()).isTrue();
  }

  @Test
  void garbageIsRefusedNotThrown() throws Exception {
    JwtVerifier v = verifier(pem(RSA));
    for (String t : List.of("", "a", "a.b", "a.b.c", "....", "eyJ.eyJ.x")) {
      assertThat(verify(v, t).failed()).as(t).isTrue();
    }
  }

  @Test
  void aJwksKeyRotationIsPickedUpAndSymmetricKeysAreIgnored() throws Exception {
    AtomicReference<JsonArray> keys =
        new AtomicReference<>(
            new JsonArray()
                .add(TestJwts.jwk(RSA, "k1"))
                .add(new JsonObject().put("kty", "oct").put("kid", "h").put("k", "c2VjcmV0"))
                .add(
                    new JsonObject()
                        .put("kty", "oct")
                        .put("kid", "h2")
                        .put("alg", "HS256")
                        .put("k", TestJwts.b64(TestJwts.publicPem(RSA)))));
    HttpServer jwks =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.response()
                        .putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("keys", keys.get()).encode()))
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    try {
      JwtVerifier v = verifier(jwksConfig(jwks));
      assertThat(
              verify(v, TestJwts.rs256(RSA.getPrivate(), TestJwts.claims("a", "admin"), "k1"))
                  .succeeded())
          .isTrue();
      assertThat(
              verify(v, TestJwts.hs256WithPublicKey(RSA, TestJwts.claims("a", "admin"))).failed())
          .as("an oct key in the JWKS is never used")
          .isTrue();
      // the issuer rotates to a new key: the first token with its kid makes the verifier refetch
      keys.get().add(TestJwts.jwk(OTHER, "k2"));
      Future<Principal> rotated =
          verify(v, TestJwts.rs256(OTHER.getPrivate(), TestJwts.claims("b", "admin"), "k2"));
      // a refetch happens at most every 10 s; the first fetch was just now
      assertThat(rotated.failed()).isTrue();
      v.close();
      // with refetching allowed at once, the same rotation is picked up by the unknown kid itself
      SecurityConfig.Jwt cfg = jwksConfig(jwks);
      keys.set(new JsonArray().add(TestJwts.jwk(RSA, "k1")));
      JwtVerifier eager = JwtVerifier.start(vertx, cfg, 50, 0).await(10, TimeUnit.SECONDS);
      keys.get().add(TestJwts.jwk(OTHER, "k2"));
      Future<Principal> picked =
          verify(eager, TestJwts.rs256(OTHER.getPrivate(), TestJwts.claims("b", "admin"), "k2"));
      assertThat(picked.succeeded()).as("%s", picked.cause()).isTrue();
      eager.close();
    } finally {
      jwks.close();
    }
  }

  @Test
  void refetchesStartedOutsideVertxAllComplete() throws Exception {
    JsonObject body = new JsonObject().put("keys", new JsonArray().add(TestJwts.jwk(RSA, "k1")));
    HttpServer jwks =
        vertx
            .createHttpServer()
            .requestHandler(req -> req.response().end(body.encode()))
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    JwtVerifier eager =
        JwtVerifier.start(vertx, jwksConfig(jwks), 50, 0).await(10, TimeUnit.SECONDS);
    try {
      // every token names a kid the JWKS lacks, so every verify refetches from this (non-Vert.x)
      // thread; a fetch whose response is lost ends in the deadline's timeout instead
      String unknownKid = TestJwts.rs256(OTHER.getPrivate(), TestJwts.claims("b", "admin"), "k9");
      for (int i = 0; i < 100; i++) {
        Future<Principal> refused = verify(eager, unknownKid);
        assertThat(refused.cause()).as("fetch %d", i).isInstanceOf(NoSuchKeyIdException.class);
      }
    } finally {
      eager.close();
      jwks.close();
    }
  }
}
