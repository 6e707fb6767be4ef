package io.ambergarden.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Layered string values with typed getters that fail with the key in the message. */
public final class RawConfig {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private final Map<String, String> values;
  private final Set<String> secrets;

  RawConfig(Map<String, String> values, Set<String> secrets) {
    this.values = Map.copyOf(values);
    this.secrets = Set.copyOf(secrets);
  }

  public String string(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new ConfigException(key, "unknown key");
    }
    return v.trim();
  }

  public String nonBlank(String key) {
    String v = string(key);
    if (v.isEmpty()) {
      throw new ConfigException(key, "must not be empty");
    }
    return v;
  }

  public String matching(String key, Pattern pattern, String what) {
    String v = string(key);
    if (!pattern.matcher(v).matches()) {
      throw new ConfigException(key, "must be " + what + ", got '" + shown(key, v) + "'");
    }
    return v;
  }

  public int intIn(String key, int min, int max) {
    long v = longIn(key, min, max);
    return (int) v;
  }

  public long longIn(String key, long min, long max) {
    String v = string(key);
    long parsed;
    try {
      parsed = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(key, "must be an integer, got '" + shown(key, v) + "'");
    }
    if (parsed < min || parsed > max) {
      throw new ConfigException(key, "must be in " + min + ".." + max + ", got " + parsed);
    }
    return parsed;
  }

  public double doubleIn(String key, double min, double max) {
    String v = string(key);
    double parsed;
    try {
      parsed = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(key, "must be a number, got '" + shown(key, v) + "'");
    }
    if (!(parsed >= min && parsed <= max)) {
      throw new ConfigException(key, "must be in " + min + ".." + max + ", got " + parsed);
    }
    return parsed;
  }

  public boolean bool(String key) {
    String v = string(key).toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true", "yes", "on" -> true;
      case "false", "no", "off" -> false;
      default -> throw new ConfigException(key, "must be true or false, got '" + v + "'");
    };
  }

  public Duration duration(String key, Duration min, Duration max) {
    String v = string(key);
    Duration d =
        parseDuration(v)
            .orElseThrow(
                () ->
                    new ConfigException(
                        key,
                        "must be a duration such as 500ms, 10s, 5m, 2h or 180d, got '" + v + "'"));
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new ConfigException(key, "must be between " + min + " and " + max + ", got " + v);
    }
    return d;
  }

  /** A duration written as a whole number and a unit: 500ms, 10s, 5m, 2h or 180d. */
  public static java.util.Optional<Duration> parseDuration(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return java.util.Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    return java.util.Optional.of(
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        });
  }

  public <E extends Enum<E>> E oneOf(String key, Class<E> type) {
    String v = string(key);
    return EnumNames.parse(type, v)
        .orElseThrow(() -> new ConfigException(key, EnumNames.mustBeOneOf(type, v)));
  }

  public List<String> list(String key) {
    String v = string(key);
    if (v.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  public Map<String, String> asMap() {
    return values;
  }

  /** The values with secrets masked, for logs and config dumps. */
  public Map<String, String> redacted() {
    Map<String, String> out = new java.util.TreeMap<>(values);
    secrets.forEach(k -> out.computeIfPresent(k, (kk, v) -> v.isEmpty() ? v : "******"));
    return out;
  }

  private String shown(String key, String v) {
    return secrets.contains(key) ? "******" : v;
  }
}
