package io.ambergarden.auth;

import io.ambergarden.config.SecurityConfig;
import io.vertx.circuitbreaker.RetryPolicy;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.NoSuchKeyIdException;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies JWT bearer tokens with vertx-auth-jwt against a PEM public key or a JWKS URL: the
 * signature, {@code iss}, {@code aud}, and {@code exp} (required) with the configured leeway. Only
 * public-key algorithms are ever configured, so {@code alg=none} and an HMAC token signed with the
 * public key as its secret both find no key and are refused. Scopes come from the {@code scope}
 * (space-separated) or {@code scp} claim, device patterns from {@code devices} (an array of
 * strings, or a space-separated string). A token that names no devices reaches every device only if
 * it has {@code admin} or all its scopes are in {@code auth.jwt.fleet-wide-scopes}; otherwise, and
 * whenever {@code devices} has another type, it is refused, so a forgotten claim never opens the
 * fleet.
 *
 * <p>A JWKS that cannot be fetched at start does not stop the service: API keys work, JWTs are
 * refused as {@link AuthException.Reason#UNAVAILABLE} (503), and the fetch is retried in the
 * background with exponential backoff and full jitter (so restarting pods do not hit the issuer in
 * step) until it succeeds; then the periodic refresh takes over.
 */
public final class JwtVerifier {
  private static final Logger LOG = LoggerFactory.getLogger(JwtVerifier.class);
  private static final long MIN_REFETCH_MILLIS = 10_000;
  private static final long FETCH_DEADLINE_MILLIS = 10_000;
  private static final long RETRY_FIRST_MILLIS = 1_000;
  private static final long RETRY_MAX_MILLIS = 60_000;

  private final Vertx vertx;
  private final Context context;
  private final SecurityConfig.Jwt cfg;
  private final int defaultRate;
  private final JWTOptions options;
  private final Set<Scope> fleetWide;
  private final long minRefetchMillis;
  private volatile JWTAuth auth;
  private final RetryPolicy retries;
  private HttpClient http;
  private long timer = -1;
  private boolean closed;
  private volatile long lastFetch;

  /** Why the JWKS has not loaded yet; null once it has. */
  private volatile String notLoaded;

  private JwtVerifier(Vertx vertx, SecurityConfig.Jwt cfg, int defaultRate, long minRefetchMillis) {
    this.minRefetchMillis = minRefetchMillis;
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.cfg = cfg;
    this.defaultRate = defaultRate;
    this.retries =
        RetryPolicy.exponentialDelayWithJitter(
            RETRY_FIRST_MILLIS, Math.min(RETRY_MAX_MILLIS, cfg.jwksRefresh().toMillis()));
    this.options =
        new JWTOptions()
            .setIssuer(cfg.issuer())
            .setAudience(List.of(cfg.audience()))
            .setLeeway((int) cfg.leeway().toSeconds());
    this.fleetWide = EnumSet.noneOf(Scope.class);
    for (String name : cfg.fleetWideScopes()) {
      fleetWide.add(
          Scope.parse(name)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "auth.jwt.fleet-wide-scopes: no scope '"
                              + name
                              + "' (known: "
                              + Arrays.stream(Scope.values()).map(Scope::text).toList()
                              + ")")));
    }
  }

  /**
   * A verifier: the key file read (fails if it cannot be used), or the JWKS fetched once. A failed
   * fetch still yields the verifier, which refuses tokens as unavailable and keeps retrying.
   */
  public static Future<JwtVerifier> start(Vertx vertx, SecurityConfig.Jwt cfg, int defaultRate) {
    return start(vertx, cfg, defaultRate, MIN_REFETCH_MILLIS);
  }

  static Future<JwtVerifier> start(
      Vertx vertx, SecurityConfig.Jwt cfg, int defaultRate, long minRefetchMillis) {
    JwtVerifier v;
    try {
      v = new JwtVerifier(vertx, cfg, defaultRate, minRefetchMillis);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    if (!cfg.publicKeyFile().isEmpty()) {
      try {
        v.auth =
            JWTAuth.create(vertx, v.pemOptions(Files.readString(Path.of(cfg.publicKeyFile()))));
      } catch (IOException | RuntimeException e) {
        return Future.failedFuture(
            new IllegalArgumentException(
                "auth.jwt.public-key-file: cannot use " + cfg.publicKeyFile() + ": " + e, e));
      }
      return Future.succeededFuture(v);
    }
    v.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(5000));
    v.notLoaded = "not fetched yet";
    Promise<JwtVerifier> firstAttempt = Promise.promise();
    v.context.runOnContext(x -> v.load(1, () -> firstAttempt.complete(v)));
    return firstAttempt.future();
  }

  /** Fetches the JWKS; on failure tries again after a jittered backoff, for as long as it takes. */
  private void load(int attempt, Runnable afterAttempt) {
    if (closed) {
      afterAttempt.run();
      return;
    }
    // the deadline's timeout may complete the fetch off the context: state changes go back to it
    fetchJwks().onComplete(ar -> context.runOnContext(x -> afterFetch(ar, attempt, afterAttempt)));
  }

  private void afterFetch(AsyncResult<Void> ar, int attempt, Runnable afterAttempt) {
    if (closed) {
      afterAttempt.run(); // closed while the fetch ran: no timer may outlive the verifier
      return;
    }
    if (ar.succeeded()) {
      notLoaded = null;
      if (attempt > 1) {
        LOG.info("JWKS from {} loaded after {} attempts", cfg.jwksUrl(), attempt);
      }
      timer = vertx.setPeriodic(cfg.jwksRefresh().toMillis(), id -> refetchQuietly());
    } else {
      notLoaded = String.valueOf(ar.cause().getMessage());
      // the cap keeps 1 << attempt from wrapping; the floor keeps a zero draw from spinning
      long delay = Math.max(100, retries.delay(ar.cause(), Math.min(attempt, 30)));
      LOG.warn(
          "JWKS from {} not loaded (attempt {}): {}; JWTs get 503 until it is, next try in {} ms",
          cfg.jwksUrl(),
          attempt,
          notLoaded,
          delay);
      timer = vertx.setTimer(delay, id -> load(attempt + 1, () -> {}));
    }
    afterAttempt.run();
  }

  public void close() {
    // on the verifier's context, so a fetch completing there cannot start a timer after this
    context.runOnContext(
        v -> {
          closed = true;
          if (timer >= 0) {
            vertx.cancelTimer(timer);
          }
          if (http != null) {
            http.close();
          }
        });
  }

  /** The token's principal, or a failure saying why the token is not accepted. */
  public Future<Principal> verify(String token) {
    String why = notLoaded;
    if (why != null) {
      return Future.failedFuture(
          new AuthException(
              AuthException.Reason.UNAVAILABLE,
              "JWTs cannot be verified yet: the JWKS at "
                  + cfg.jwksUrl()
                  + " has not loaded ("
                  + why
                  + "); retrying"));
    }
    return authenticate(token)
        .recover(
            err -> {
              // a rotated key: fetch the JWKS again (not more than every 10 s), then retry once
              if (err instanceof NoSuchKeyIdException
                  && http != null
                  && System.currentTimeMillis() - lastFetch >= minRefetchMillis) {
                return fetchJwks().compose(v -> authenticate(token));
              }
              return Future.failedFuture(err);
            })
        .compose(this::principal);
  }

  private Future<User> authenticate(String token) {
    try {
      return auth.authenticate(new TokenCredentials(token));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<Principal> principal(User user) {
    JsonObject claims = user.attributes().getJsonObject("accessToken");
    Object exp = claims.getValue("exp");
    Object sub = claims.getValue("sub");
    if (!(exp instanceof Number)) {
      return Future.failedFuture("the token has no exp claim");
    }
    if (!(sub instanceof String s) || s.isEmpty()) {
      return Future.failedFuture("the token has no sub claim");
    }
    Set<Scope> scopes = EnumSet.noneOf(Scope.class);
    scopes.addAll(Scope.ofClaim(claims.getString("scope")));
    for (String scp : strings(claims.getValue("scp"))) {
      Scope.parse(scp).ifPresent(scopes::add);
    }
    DevicePatterns devices;
    try {
      devices = devices(claims.getValue("devices"), scopes);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture("devices claim: " + e.getMessage());
    }
    return Future.succeededFuture(
        new Principal(
            s,
            Principal.Kind.JWT,
            s,
            scopes,
            devices,
            defaultRate,
            ((Number) exp).longValue() * 1000));
  }

  /** The token's device patterns; throws IllegalArgumentException saying why it is refused. */
  DevicePatterns devices(Object claim, Set<Scope> scopes) {
    List<String> named;
    if (claim == null) {
      named = List.of();
    } else if (claim instanceof String || claim instanceof JsonArray) {
      if (claim instanceof JsonArray a && !a.stream().allMatch(String.class::isInstance)) {
        throw new IllegalArgumentException("must hold only strings, got " + a.encode());
      }
      named = strings(claim);
    } else {
      throw new IllegalArgumentException(
          "must be an array of device patterns or a space-separated string, got a "
              + claim.getClass().getSimpleName());
    }
    if (!named.isEmpty()) {
      if (named.contains("*")) {
        throw new IllegalArgumentException(
            "'*' is not a device pattern: a token without devices reaches every device only for"
                + " the scopes in auth.jwt.fleet-wide-scopes");
      }
      return DevicePatterns.of(named);
    }
    if (scopes.contains(Scope.ADMIN) || (!scopes.isEmpty() && fleetWide.containsAll(scopes))) {
      return DevicePatterns.all();
    }
    throw new IllegalArgumentException(
        "the token names no devices, and not all of its scopes "
            + scopes.stream().map(Scope::text).toList()
            + " are fleet-wide (auth.jwt.fleet-wide-scopes)");
  }

  private static List<String> strings(Object claim) {
    List<String> out = new ArrayList<>();
    if (claim instanceof String s) {
      for (String part : s.split(" ")) {
        if (!part.isEmpty()) {
          out.add(part);
        }
      }
    } else if (claim instanceof JsonArray a) {
      for (Object o : a) {
        out.add(String.valueOf(o));
      }
    }
    return out;
  }

  /** Every algorithm the key's type allows, and only those. */
  JWTAuthOptions pemOptions(String pem) {
    PublicKey key = parsePublicKey(pem);
    List<String> algorithms;
    if (key instanceof RSAPublicKey) {
      algorithms = List.of("RS256", "RS384", "RS512");
    } else if (key instanceof ECPublicKey ec) {
      int bits = ec.getParams().getCurve().getField().getFieldSize();
      algorithms = List.of(bits <= 256 ? "ES256" : bits <= 384 ? "ES384" : "ES512");
    } else {
      throw new IllegalArgumentException("not an RSA or EC public key: " + key.getAlgorithm());
    }
    JWTAuthOptions o = new JWTAuthOptions().setJWTOptions(options);
    for (String alg : algorithms) {
      o.addPubSecKey(new PubSecKeyOptions().setAlgorithm(alg).setBuffer(pem));
    }
    return o;
  }

  static PublicKey parsePublicKey(String pem) {
    String body =
        pem.replace("-----BEGIN PUBLIC KEY-----", "")
            .replace("-----END PUBLIC KEY-----", "")
            .replaceAll("\\s", "");
    byte[] der = Base64.getDecoder().decode(body);
    for (String type : List.of("RSA", "EC")) {
      try {
        return KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der));
      } catch (Exception e) {
        // try the next type
      }
    }
    throw new IllegalArgumentException("expected a PEM 'PUBLIC KEY' (RSA or EC)");
  }

  private void refetchQuietly() {
    fetchJwks().onFailure(err -> LOG.warn("JWKS refresh from {} failed: {}", cfg.jwksUrl(), err));
  }

  /**
   * Fetches the JWKS on the verifier's own context. Started from a thread outside Vert.x (a test, a
   * startup path), the response could arrive before its body handler was set and the fetch would
   * never complete (seen with Vert.x 5.0.7 in about one fetch in 30).
   */
  private Future<Void> fetchJwks() {
    lastFetch = System.currentTimeMillis();
    Promise<Void> fetched = Promise.promise();
    context.runOnContext(v -> requestJwks().onComplete(fetched));
    // a deadline of its own, so a lost response cannot hold a token's verification forever
    return fetched.future().timeout(FETCH_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Symmetric ("oct") keys are dropped, so HMAC tokens can never verify. */
  private Future<Void> requestJwks() {
    return http.request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setAbsoluteURI(cfg.jwksUrl())
                .setTimeout(FETCH_DEADLINE_MILLIS))
        .compose(req -> req.send())
        .compose(
            resp ->
                resp.statusCode() == 200
                    ? resp.body()
                    : Future.failedFuture("JWKS answered " + resp.statusCode()))
        .map(
            body -> {
              JsonArray keys =
                  new JsonObject(body.toString(StandardCharsets.UTF_8)).getJsonArray("keys");
              JWTAuthOptions o = new JWTAuthOptions().setJWTOptions(options);
              int used = 0;
              for (Object k : keys == null ? new JsonArray() : keys) {
                if (k instanceof JsonObject jwk && !"oct".equals(jwk.getString("kty"))) {
                  o.addJwk(jwk);
                  used++;
                }
              }
              if (used == 0) {
                throw new IllegalStateException("JWKS at " + cfg.jwksUrl() + " has no public key");
              }
              auth = JWTAuth.create(vertx, o);
              return null;
            });
  }
}
