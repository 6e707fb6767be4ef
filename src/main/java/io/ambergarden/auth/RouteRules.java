package io.ambergarden.auth;

import java.util.List;

/**
 * Which credential each route needs: its scope, and how a device-bound credential is checked there.
 * One table for the whole API, so a route's rule is found in one place; an /api route missing from
 * it needs {@code admin} (closed by default).
 */
public final class RouteRules {
  private RouteRules() {}

  /** How the devices a request touches are found, for credentials bound to some devices. */
  public enum Devices {
    /** The {@code {id}} path segment. */
    PATH,
    /** Every event of the body (checked once the body is read). */
    BODY,
    /** The {@code devices=} filter of the live feed, which must be given. */
    LIVE_FILTER,
    /** Nothing to check: what the request yields keeps the credential's binding (tickets). */
    INHERITED,
    /** The route spans devices it cannot name up front: refused to bound credentials. */
    ACROSS
  }

  /** What a route needs; {@code scope} null means open (no credentials). */
  public record Rule(Scope scope, Devices devices, String deviceId) {
    public boolean open() {
      return scope == null;
    }
  }

  private record Entry(String method, String[] segments, Scope scope, Devices devices) {}

  private static final Rule OPEN = new Rule(null, Devices.INHERITED, null);

  private static final List<Entry> TABLE =
      List.of(
          e("POST", "/api/v1/events", Scope.EVENTS_WRITE, Devices.BODY),
          e("GET", "/api/v1/devices", Scope.EVENTS_READ, Devices.ACROSS),
          e("GET", "/api/v1/devices/{id}/events", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/events/export", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/latest", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/counters", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/rollups", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/series", Scope.EVENTS_READ, Devices.PATH),
          e("GET", "/api/v1/device-types/{type}/events", Scope.EVENTS_READ, Devices.ACROSS),
          e("GET", "/api/v1/stats/status", Scope.EVENTS_READ, Devices.ACROSS),
          e("GET", "/api/v1/stats/abnormal", Scope.EVENTS_READ, Devices.ACROSS),
          e("GET", "/api/v1/stats/activity", Scope.EVENTS_READ, Devices.ACROSS),
          e("GET", "/api/v1/live", Scope.LIVE_READ, Devices.LIVE_FILTER),
          e("POST", "/api/v1/live/tickets", Scope.LIVE_READ, Devices.INHERITED),
          e("POST", "/api/v1/devices/{id}/images", Scope.MEDIA_WRITE, Devices.PATH),
          e("GET", "/api/v1/devices/{id}/images", Scope.MEDIA_READ, Devices.PATH),
          e("GET", "/api/v1/images/{imageId}", Scope.MEDIA_READ, Devices.ACROSS),
          e("GET", "/api/v1/images/{imageId}/content", Scope.MEDIA_READ, Devices.ACROSS),
          e("DELETE", "/api/v1/images/{imageId}", Scope.MEDIA_WRITE, Devices.ACROSS),
          e("POST", "/api/v1/images/{imageId}/shares", Scope.MEDIA_WRITE, Devices.ACROSS),
          e("GET", "/api/v1/tags/{tag}/images", Scope.MEDIA_READ, Devices.ACROSS),
          // a share link is itself the capability, and expires
          e("GET", "/api/v1/shares/{shareId}", null, Devices.INHERITED),
          e("POST", "/api/v1/admin/keys", Scope.ADMIN, Devices.ACROSS),
          e("GET", "/api/v1/admin/keys", Scope.ADMIN, Devices.ACROSS),
          e("DELETE", "/api/v1/admin/keys/{keyId}", Scope.ADMIN, Devices.ACROSS),
          e("GET", "/metrics", Scope.ADMIN, Devices.ACROSS));

  private static Entry e(String method, String path, Scope scope, Devices devices) {
    return new Entry(method, path.substring(1).split("/"), scope, devices);
  }

  /** The rule for a request; {@code path} is the normalized path without the query. */
  public static Rule of(String method, String path) {
    String p =
        path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    String[] segments = p.startsWith("/") ? p.substring(1).split("/", -1) : new String[] {""};
    String m = method.equals("HEAD") ? "GET" : method;
    for (Entry entry : TABLE) {
      if (!entry.method.equals(m) || entry.segments.length != segments.length) {
        continue;
      }
      String deviceId = null;
      boolean match = true;
      for (int i = 0; i < segments.length && match; i++) {
        String t = entry.segments[i];
        if (t.startsWith("{")) {
          match = !segments[i].isEmpty();
          if (t.equals("{id}")) {
            deviceId = segments[i];
          }
        } else {
          match = t.equals(segments[i]);
        }
      }
      if (match) {
        return entry.scope == null ? OPEN : new Rule(entry.scope, entry.devices, deviceId);
      }
    }
    if (p.equals("/api") || p.startsWith("/api/")) {
      return new Rule(Scope.ADMIN, Devices.ACROSS, null);
    }
    return OPEN;
  }

  /** "METHOD /template" -> scope text (or "open"), for the contract test against the document. */
  public static java.util.Map<String, String> table() {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (Entry entry : TABLE) {
      out.put(
          entry.method + " /" + String.join("/", entry.segments),
          entry.scope == null ? "open" : entry.scope.text());
    }
    return out;
  }
}
