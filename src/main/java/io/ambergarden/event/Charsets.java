package io.ambergarden.event;

/** Character-class checks of the hot path, without regex. */
final class Charsets {
  private static final boolean[] TOKEN = new boolean[128];

  static {
    for (char c = 'a'; c <= 'z'; c++) {
      TOKEN[c] = true;
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      TOKEN[c] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      TOKEN[c] = true;
    }
    TOKEN['.'] = true;
    TOKEN['_'] = true;
    TOKEN[':'] = true;
    TOKEN['-'] = true;
  }

  private Charsets() {
  }

  /** Only [A-Za-z0-9._:-]. */
  static boolean isToken(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 128 || !TOKEN[c]) {
        return false;
      }
    }
    return true;
  }

  static boolean hasControl(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
        return true;
      }
    }
    return false;
  }

  static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
