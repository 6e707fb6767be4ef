package io.ambergarden.auth;

import java.util.Set;

/**
 * Who is calling, as established from a credential: an API key, a JWT's subject, or a key this
 * process made for itself. {@code expiresAtMillis} is 0 for credentials that do not expire (keys
 * can still be revoked).
 */
public record Principal(
    String id,
    Kind kind,
    String name,
    Set<Scope> scopes,
    DevicePatterns devices,
    int ratePerSecond,
    long expiresAtMillis) {

  public enum Kind {
    API_KEY,
    JWT,
    LOCAL
  }

  public Principal {
    scopes = Set.copyOf(scopes);
  }

  public boolean has(Scope scope) {
    return scopes.contains(scope);
  }

  public boolean expires() {
    return expiresAtMillis > 0;
  }

  /** The rate-limit bucket of this caller: keys by id, JWTs by subject. */
  public String bucket() {
    return kind + ":" + id;
  }
}
