package io.ambergarden.auth;

import java.util.Locale;
import java.util.Optional;

/**
 * The credential a request presents: {@code Authorization: Bearer <API key or JWT>}, {@code
 * X-API-Key: <key>}, or a live-feed ticket. Never logged: toString hides the value.
 */
public record Credential(Type type, String value) {
  public enum Type {
    API_KEY,
    JWT,
    TICKET
  }

  /** The presented credential, if any; the Authorization header wins over X-API-Key. */
  public static Optional<Credential> from(String authorization, String apiKey, String ticket) {
    if (authorization != null && !authorization.isBlank()) {
      String a = authorization.trim();
      if (a.length() > 7 && a.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
        String token = a.substring(7).trim();
        return Optional.of(
            new Credential(ApiKeys.looksLikeKey(token) ? Type.API_KEY : Type.JWT, token));
      }
      // another scheme (Basic, ...) is presented but not one we take: invalid, not missing
      return Optional.of(new Credential(Type.JWT, ""));
    }
    if (apiKey != null && !apiKey.isBlank()) {
      return Optional.of(new Credential(Type.API_KEY, apiKey.trim()));
    }
    if (ticket != null && !ticket.isBlank()) {
      return Optional.of(new Credential(Type.TICKET, ticket.trim()));
    }
    return Optional.empty();
  }

  /** True for credentials sent in a header, which a browser page cannot attach on its own. */
  public boolean inHeader() {
    return type != Type.TICKET;
  }

  @Override
  public String toString() {
    return "Credential[" + type + "]";
  }
}
