package io.ambergarden.auth;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** What a credential may do; each route needs one (see {@link RouteRules}). */
public enum Scope {
  EVENTS_WRITE("events:write"),
  EVENTS_READ("events:read"),
  LIVE_READ("live:read"),
  MEDIA_WRITE("media:write"),
  MEDIA_READ("media:read"),
  ADMIN("admin");

  private final String text;

  Scope(String text) {
    this.text = text;
  }

  /** The name clients see, e.g. {@code events:write}. */
  public String text() {
    return text;
  }

  public static Optional<Scope> parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    for (Scope s : values()) {
      if (s.text.equals(t)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** The scopes of a space-separated OAuth2 {@code scope} string; unknown names are ignored. */
  public static Set<Scope> ofClaim(String spaceSeparated) {
    Set<Scope> out = EnumSet.noneOf(Scope.class);
    if (spaceSeparated != null) {
      for (String part : spaceSeparated.split(" ")) {
        parse(part).ifPresent(out::add);
      }
    }
    return out;
  }
}
