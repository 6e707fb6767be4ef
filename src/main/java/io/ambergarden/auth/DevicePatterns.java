package io.ambergarden.auth;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The devices a credential is bound to: exact ids or globs such as {@code M-*}, where {@code *}
 * stands for any run of device-id characters. No patterns means every device.
 */
public final class DevicePatterns {
  public static final int MAX_PATTERNS = 100;
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:*-]{1,128}");
  private static final DevicePatterns ALL = new DevicePatterns(List.of());

  private final List<String> patterns;

  private DevicePatterns(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  public static DevicePatterns all() {
    return ALL;
  }

  /** Validated patterns; throws IllegalArgumentException naming the bad one. */
  public static DevicePatterns of(List<String> patterns) {
    if (patterns.size() > MAX_PATTERNS) {
      throw new IllegalArgumentException("at most " + MAX_PATTERNS + " device patterns");
    }
    for (String p : patterns) {
      if (p == null || !VALID.matcher(p).matches()) {
        throw new IllegalArgumentException(
            "device pattern '" + p + "' must be 1-128 characters of [A-Za-z0-9._:-] and *");
      }
      if (p.equals("*")) {
        throw new IllegalArgumentException("'*' binds nothing: leave devices empty instead");
      }
    }
    return patterns.isEmpty() ? ALL : new DevicePatterns(patterns);
  }

  /** True when the credential may touch only some devices. */
  public boolean bound() {
    return !patterns.isEmpty();
  }

  public List<String> patterns() {
    return patterns;
  }

  public boolean allows(String deviceId) {
    if (!bound()) {
      return true;
    }
    if (deviceId == null) {
      return false;
    }
    for (String p : patterns) {
      if (glob(p, 0, deviceId, 0)) {
        return true;
      }
    }
    return false;
  }

  /** Glob match where '*' covers only device-id characters, so no id can slip out of it. */
  private static boolean glob(String p, int pi, String s, int si) {
    while (pi < p.length()) {
      char c = p.charAt(pi);
      if (c == '*') {
        // collapse runs of '*', then try every split point
        while (pi < p.length() && p.charAt(pi) == '*') {
          pi++;
        }
        for (int k = si; k <= s.length(); k++) {
          if (glob(p, pi, s, k)) {
            return true;
          }
          if (k < s.length() && !idChar(s.charAt(k))) {
            return false;
          }
        }
        return false;
      }
      if (si >= s.length() || s.charAt(si) != c) {
        return false;
      }
      pi++;
      si++;
    }
    return si == s.length();
  }

  private static boolean idChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == ':'
        || c == '-';
  }

  @Override
  public String toString() {
    return bound() ? patterns.toString() : "[all devices]";
  }
}
