package io.ambergarden.web;

import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import java.util.regex.Pattern;

/**
 * Security headers of the console's pages and files. The policy lets a page run scripts and styles
 * from this origin only (never inline ones), call the API and open the live feed's WebSocket on
 * this host, show images from object URLs (device images) and data URLs (the API reference's
 * icons), and never be framed. No Referer leaves the page, and browsers take the declared content
 * types as they are.
 */
public final class ConsoleHeaders {
  public static final String CSP = "Content-Security-Policy";
  public static final String REFERRER_POLICY = "Referrer-Policy";
  public static final String CONTENT_TYPE_OPTIONS = "X-Content-Type-Options";

  /** A Host that is safe to copy into the policy: no separators of the header's grammar. */
  private static final Pattern SAFE_AUTHORITY = Pattern.compile("[A-Za-z0-9.\\-\\[\\]:]{1,255}");

  private ConsoleHeaders() {}

  /** Puts the headers on the response, then hands on to the next handler. */
  public static void apply(RoutingContext ctx) {
    HostAndPort authority = ctx.request().authority();
    ctx.response()
        .putHeader(CSP, policy(authority == null ? null : authority.toString()))
        .putHeader(REFERRER_POLICY, "no-referrer")
        .putHeader(CONTENT_TYPE_OPTIONS, "nosniff");
    ctx.next();
  }

  /**
   * The policy for a page served to {@code authority} (host[:port]). 'self' already covers the
   * WebSocket of the same host in current browsers; ws:// and wss:// of the host are named too for
   * the ones that read CSP level 2, wss:// also for a page behind a TLS-terminating proxy.
   */
  static String policy(String authority) {
    String sockets =
        authority != null && SAFE_AUTHORITY.matcher(authority).matches()
            ? " ws://" + authority + " wss://" + authority
            : "";
    return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:;"
        + " connect-src 'self'"
        + sockets
        + "; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  }
}
