package io.ambergarden.web.live;

import io.ambergarden.web.Origins;
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
    return allowed.contains(origin) || Origins.sameOrigin(origin, host);
  }
}
