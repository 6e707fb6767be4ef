package io.ambergarden.event;

/**
 * Renders the field of an error ({@code metrics.x}, {@code tags.y}) from a client-chosen name:
 * non-printable characters are escaped and long names truncated, so an error never echoes control
 * characters or a megabyte of key back.
 */
final class FieldPaths {

  private static final int MAX_NAME_IN_PATH = 80;

  private FieldPaths() {}

  /** prefix + name, with non-printable characters escaped and long names truncated. */
  static String path(String prefix, String name) {
    int n = name.length();
    if (n <= MAX_NAME_IN_PATH) {
      boolean plain = true;
      for (int i = 0; i < n; i++) {
        char c = name.charAt(i);
        if (c < 0x20 || c > 0x7E) {
          plain = false;
          break;
        }
      }
      if (plain) {
        return prefix.isEmpty() ? name : prefix + name;
      }
    }
    return appendName(new StringBuilder(prefix), name).toString();
  }

  /** Appends the name escaped and truncated as in {@link #path}. */
  static StringBuilder appendName(StringBuilder sb, String name) {
    int n = Math.min(name.length(), MAX_NAME_IN_PATH);
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        sb.append(String.format("\\u%04X", (int) c));
      } else {
        sb.append(c);
      }
    }
    if (name.length() > MAX_NAME_IN_PATH) {
      sb.append("...");
    }
    return sb;
  }
}
