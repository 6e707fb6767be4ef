package io.ambergarden.web.live;

import io.ambergarden.event.Event;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.QueryParams;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What one live-feed client asked for: empty sets match everything; {@code since} is null without
 * replay.
 */
public record LiveFilter(Set<String> devices, Set<String> types, Set<Integer> codes, Long since) {
  public boolean matches(Event e) {
    return (devices.isEmpty() || devices.contains(e.deviceId()))
        && (types.isEmpty() || (e.deviceType() != null && types.contains(e.deviceType())))
        && (codes.isEmpty() || (e.code() != null && codes.contains(e.code())))
        && (since == null || e.ts() >= since);
  }

  /**
   * Parses the query parameters; every problem is a 400 naming the parameter. {@code since} must
   * lie within the retention and needs devices or types, so that a replay reads a bounded set of
   * partitions.
   */
  public static LiveFilter parse(
      String devices,
      String types,
      String codes,
      String since,
      int maxValues,
      long now,
      long retentionMillis) {
    Set<String> d = ids("devices", devices, maxValues);
    Set<String> t = ids("types", types, maxValues);
    Set<Integer> c = new LinkedHashSet<>();
    for (String v : split("codes", codes, maxValues)) {
      c.add(QueryParams.intIn("codes", v, 0, Integer.MIN_VALUE, Integer.MAX_VALUE));
    }
    Long s = null;
    if (since != null) {
      s = QueryParams.time("since", since, now);
      if (s < now - retentionMillis || s > now) {
        throw ApiException.invalidParameter(
            "since", "must lie within the retention and not in the future");
      }
      if (d.isEmpty() && t.isEmpty()) {
        throw ApiException.invalidParameter(
            "since", "needs a devices or types filter, so the replay is bounded");
      }
    }
    return new LiveFilter(Set.copyOf(d), Set.copyOf(t), Set.copyOf(c), s);
  }

  private static Set<String> ids(String name, String value, int maxValues) {
    Set<String> out = new LinkedHashSet<>();
    for (String v : split(name, value, maxValues)) {
      out.add(QueryParams.id(name, v));
    }
    return out;
  }

  private static Set<String> split(String name, String value, int maxValues) {
    Set<String> out = new LinkedHashSet<>();
    if (value == null || value.isEmpty()) {
      return out;
    }
    for (String v : value.split(",", -1)) {
      out.add(v.trim());
    }
    if (out.size() > maxValues) {
      throw ApiException.invalidParameter(name, "at most " + maxValues + " values");
    }
    return out;
  }
}
