package io.ambergarden.web;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/** Checks on the live feed's upgrade request: a WebSocket upgrade, from an allowed origin. */
final class LiveHandshake {
  private LiveHandshake() {}

  static boolean isUpgrade(String connection, String upgrade) {
    return connection != null
        && connection.toLowerCase(Locale.ROOT).contains("upgrade")
        && "websocket".equalsIgnoreCase(upgrade);
  }

  /** Same origin as the page (Origin's authority = Host), or one of live.allowed-origins. */
  static boolean originAllowed(String origin, String host, List<String> allowed) {
    if (origin == null) {
      return true; // not a browser; browsers always send Origin on WebSocket upgrades
    }
    return allowed.contains(origin) || sameOrigin(origin, host);
  }

  /** The Origin's authority equals the Host the request was sent to. */
  static boolean sameOrigin(String origin, String host) {
    try {
      URI u = URI.create(origin);
      String authority = u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort();
      return host != null && authority != null && authority.equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
