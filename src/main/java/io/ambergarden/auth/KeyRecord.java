package io.ambergarden.auth;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A stored API key: everything but the secret, of which only the SHA-256 is kept. A key is never
 * changed after creation, only revoked, so a cached copy is wrong only about revocation.
 */
public record KeyRecord(
    String id,
    String name,
    byte[] hash,
    Set<Scope> scopes,
    List<String> devices,
    int ratePerSecond,
    Instant createdAt,
    String createdBy,
    Instant revokedAt) {

  public KeyRecord {
    scopes = Set.copyOf(scopes);
    devices = List.copyOf(devices);
  }

  public boolean revoked() {
    return revokedAt != null;
  }

  /** The principal this key stands for; {@code defaultRate} when the key has no rate of its own. */
  public Principal principal(int defaultRate) {
    return new Principal(
        id,
        Principal.Kind.API_KEY,
        name,
        scopes,
        DevicePatterns.of(devices),
        ratePerSecond > 0 ? ratePerSecond : defaultRate,
        0);
  }

  @Override
  public String toString() {
    return "KeyRecord[id="
        + id
        + ", name="
        + name
        + ", scopes="
        + scopes
        + ", revoked="
        + revoked()
        + "]";
  }
}
