package io.ambergarden.auth;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.SecurityConfig;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Turns a presented credential into a {@link Principal}, for every HTTP verticle instance of the
 * process: API keys from the {@link StaticKeys} file or through the {@link KeyCache}, JWTs through
 * the {@link JwtVerifier}, tickets through the store. It also keeps the per-caller rate limits and
 * the per-address limit on failed authentications ({@link AddressFailures}), and issues tickets.
 */
public final class Gatekeeper {
  private final SecurityConfig.Access cfg;
  private final KeyStore store;
  private final KeyCache keys;
  private final KeyConfirmations confirmations;
  private final Function<String, Future<Optional<KeyRecord>>> find;
  private final StaticKeys staticKeys;
  private final AddressFailures failures;
  private final ClientAddress clientAddress;
  private final RateLimits rates;
  private final JwtVerifier jwt;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  /** Retry-After of a key that cannot be verified now: the store is out, likely for a while. */
  private static final int UNVERIFIABLE_RETRY_SECONDS = 5;

  /** Keys this process made for itself (the simulator); never stored, gone on restart. */
  private final Map<String, LocalKey> localKeys = new ConcurrentHashMap<>();

  private record LocalKey(byte[] hash, Principal principal) {}

  Gatekeeper(
      SecurityConfig.Access cfg,
      KeyStore store,
      StaticKeys staticKeys,
      JwtVerifier jwt,
      Clock clock) {
    this(cfg, store, store::find, staticKeys, jwt, clock);
  }

  /** {@code find}: the key read, {@code store::find} but for tests. */
  Gatekeeper(
      SecurityConfig.Access cfg,
      KeyStore store,
      Function<String, Future<Optional<KeyRecord>>> find,
      StaticKeys staticKeys,
      JwtVerifier jwt,
      Clock clock) {
    this.cfg = cfg;
    this.store = store;
    this.staticKeys = staticKeys;
    this.jwt = jwt;
    this.clock = clock;
    // with max-stale 0, a read within the refresh is as fresh as the cache ever answers
    this.confirmations =
        new KeyConfirmations(
            cfg.keyCacheSize(),
            Math.max(cfg.keyCacheMaxStale().toMillis(), cfg.keyCacheRefresh().toMillis()));
    this.find = confirmations.noting(find, clock::millis);
    SecurityConfig.KeyLookup lookup = cfg.keyLookup();
    long refresh = cfg.keyCacheRefresh().toMillis();
    this.keys =
        new KeyCache(
            this.find,
            new KeyCache.Limits(
                cfg.keyCacheSize(),
                refresh,
                cfg.keyCacheMaxStale().toMillis(),
                lookup.negativeSize(),
                lookup.negativeTtl().toMillis(),
                refresh / 2),
            clock::millis);
    this.failures =
        new AddressFailures(
            lookup.addressFailuresPerMinute(), lookup.addressMaxTracked(), System::nanoTime);
    this.clientAddress = new ClientAddress(lookup.trustedProxies());
    this.rates = new RateLimits(cfg.maxTrackedBuckets(), System::nanoTime);
  }

  /** {@code client} may be null when no API key will be looked up (tests of the HTTP layer). */
  public static Future<Gatekeeper> start(Vertx vertx, AmberConfig config, CassandraClient client) {
    SecurityConfig.Access cfg = config.access();
    KeyStore store = new KeyStore(client, config.cassandra().keyspace());
    StaticKeys fromFile;
    try {
      fromFile = StaticKeys.load(cfg.keyLookup().staticKeysFile());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    Future<JwtVerifier> jwt =
        cfg.enabled() && cfg.jwt().enabled()
            ? JwtVerifier.start(vertx, cfg.jwt(), cfg.defaultRatePerSecond())
            : Future.succeededFuture(null);
    return jwt.map(v -> new Gatekeeper(cfg, store, fromFile, v, Clock.systemUTC()));
  }

  public void close() {
    if (jwt != null) {
      jwt.close();
    }
  }

  public boolean enabled() {
    return cfg.enabled();
  }

  public SecurityConfig.Access config() {
    return cfg;
  }

  public KeyStore store() {
    return store;
  }

  /**
   * The client address of a request from {@code peer}: X-Forwarded-For counts only from a trusted
   * proxy.
   */
  public String clientAddress(String peer, List<String> forwardedFor) {
    return clientAddress.of(peer, forwardedFor);
  }

  /**
   * The principal of a credential presented from {@code address}; fails with an {@link
   * AuthException}. An address that failed too often is refused (THROTTLED) before any lookup, and
   * each INVALID answer counts against it.
   */
  public Future<Principal> authenticate(Credential c, String address) {
    long wait = failures.waitNanos(address);
    if (wait > 0) {
      return Future.failedFuture(
          new AuthException(
              AuthException.Reason.THROTTLED,
              "too many failed authentications from this address",
              (int) Math.max(1, (wait + 999_999_999L) / 1_000_000_000L)));
    }
    return authenticate(c)
        .onFailure(
            err -> {
              if (err instanceof AuthException a && a.reason() == AuthException.Reason.INVALID) {
                failures.failed(address);
              }
            });
  }

  /** The principal of a credential; fails with an {@link AuthException}. */
  public Future<Principal> authenticate(Credential c) {
    return switch (c.type()) {
      case API_KEY -> apiKey(c.value());
      case JWT ->
          jwt == null
              ? Future.failedFuture(
                  new AuthException(AuthException.Reason.INVALID, "not an API key"))
              : jwt.verify(c.value())
                  .recover(
                      err ->
                          Future.failedFuture(
                              err instanceof AuthException refusal
                                  ? refusal
                                  : new AuthException(
                                      AuthException.Reason.INVALID,
                                      "invalid token: " + err.getMessage())));
      case TICKET -> redeem(c.value());
    };
  }

  private Future<Principal> apiKey(String text) {
    Optional<ApiKeys.Presented> presented = ApiKeys.parse(text);
    if (presented.isEmpty()) {
      return invalid("malformed API key");
    }
    ApiKeys.Presented p = presented.get();
    LocalKey local = localKeys.get(p.id());
    if (local != null) {
      return ApiKeys.matches(p, local.hash())
          ? Future.succeededFuture(local.principal())
          : invalid("unknown or revoked API key");
    }
    Optional<KeyRecord> fixed = staticKeys.find(p.id());
    if (fixed.isPresent()) {
      return ApiKeys.matches(p, fixed.get().hash())
          ? Future.succeededFuture(fixed.get().principal(cfg.defaultRatePerSecond()))
          : invalid("unknown or revoked API key");
    }
    // a key this instance verified before keeps working while the store cannot be read
    return keys.getThroughOutage(p.id())
        .recover(
            err ->
                Future.failedFuture(
                    new AuthException(
                        AuthException.Reason.UNAVAILABLE,
                        "credentials cannot be verified now: " + err.getMessage(),
                        UNVERIFIABLE_RETRY_SECONDS)))
        .compose(
            found -> {
              if (found.isEmpty()
                  || found.get().revoked()
                  || !ApiKeys.matches(p, found.get().hash())) {
                return invalid("unknown or revoked API key");
              }
              return Future.succeededFuture(found.get().principal(cfg.defaultRatePerSecond()));
            });
  }

  /**
   * Still valid? For a long-lived WebSocket: a JWT's expiry; a key's revocation (within the cache's
   * refresh), and false once the key has not been confirmed by a store read for longer than
   * max-stale (a remembered answer keeps a socket open only that long).
   */
  public Future<Boolean> stillValid(Principal p) {
    long now = clock.millis();
    if (p.expires() && now >= p.expiresAtMillis()) {
      return Future.succeededFuture(false);
    }
    if (p.kind() != Principal.Kind.API_KEY || staticKeys.find(p.id()).isPresent()) {
      return Future.succeededFuture(true);
    }
    return keys.get(p.id())
        .transform(
            ar -> {
              if (ar.succeeded() && !valid(ar.result())) {
                return Future.succeededFuture(false);
              }
              if (confirmations.recent(p.id(), now)) {
                return Future.succeededFuture(true);
              }
              // unconfirmed for too long (or never noted here): only a read now can keep it open
              return find.apply(p.id()).map(Gatekeeper::valid).otherwise(false);
            });
  }

  private static boolean valid(Optional<KeyRecord> found) {
    return found.isPresent() && !found.get().revoked();
  }

  /** 0 when the caller may go ahead, else nanoseconds until its next request is allowed. */
  public long rateWait(Principal p) {
    return rates.acquire(p.bucket(), p.ratePerSecond());
  }

  /** A single-use ticket for the live feed, carrying {@code p}'s scopes and devices. */
  public Future<Ticket> issueTicket(Principal p) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String ticket = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    long ttl = cfg.ticketTtl().toMillis();
    long expiresAt = clock.millis() + ttl;
    return store
        .insertTicket(ApiKeys.hash(ticket), p, (int) Math.max(1, ttl / 1000))
        .map(v -> new Ticket(ticket, expiresAt));
  }

  public record Ticket(String value, long expiresAtMillis) {
    @Override
    public String toString() {
      return "Ticket[expiresAt=" + expiresAtMillis + "]";
    }
  }

  private Future<Principal> redeem(String ticket) {
    if (ticket.length() != 43) {
      return invalid("unknown, used or expired ticket");
    }
    return store
        .redeemTicket(ApiKeys.hash(ticket))
        .recover(
            err ->
                Future.failedFuture(
                    new AuthException(
                        AuthException.Reason.UNAVAILABLE,
                        "the ticket cannot be checked now: " + err.getMessage())))
        .compose(
            p ->
                p.isPresent()
                    ? Future.succeededFuture(p.get())
                    : invalid("unknown, used or expired ticket"));
  }

  /** Makes a key valid on this instance only, for the process's own clients (the simulator). */
  public String localKey(String name, Set<Scope> scopes) {
    ApiKeys.Minted m = ApiKeys.mint();
    localKeys.put(
        m.id(),
        new LocalKey(
            m.hash(),
            new Principal(
                m.id(),
                Principal.Kind.LOCAL,
                name,
                scopes,
                DevicePatterns.all(),
                Integer.MAX_VALUE / 2,
                0)));
    return m.text();
  }

  /** After a revoke on this instance: refused here at once, elsewhere within the refresh. */
  public void forget(String keyId) {
    keys.invalidate(keyId);
  }

  private static <T> Future<T> invalid(String detail) {
    return Future.failedFuture(new AuthException(AuthException.Reason.INVALID, detail));
  }
}
