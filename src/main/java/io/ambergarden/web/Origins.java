package io.ambergarden.web;

import java.net.URI;

/** Origin checks shared by CORS and the live feed's upgrade. */
public final class Origins {
  private Origins() {}

  /** The Origin's authority equals the Host the request was sent to. */
  public static boolean sameOrigin(String origin, String host) {
    try {
      URI u = URI.create(origin);
      String authority = u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort();
      return host != null && authority != null && authority.equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
