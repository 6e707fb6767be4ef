package io.ambergarden.event;

/** Strict UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
final class Utf8 {

  private Utf8() {}

  /**
   * Returns the offset of the first byte that is not part of well-formed UTF-8, or of the first NUL
   * byte (never legal unescaped in JSON; its presence also means UTF-16/32), or -1 when the range
   * is well-formed.
   */
  static int firstInvalid(byte[] b, int off, int end) {
    int i = off;
    while (i < end) {
      int c = b[i];
      if (c > 0) {
        i++;
        continue;
      }
      if (c == 0) {
        return i;
      }
      c &= 0xFF;
      if (c < 0xC2) {
        return i; // continuation byte or overlong 2-byte lead
      }
      if (c < 0xE0) {
        if (i + 1 >= end || !cont(b[i + 1])) {
          return i;
        }
        i += 2;
      } else if (c < 0xF0) {
        if (i + 2 >= end) {
          return i;
        }
        int c1 = b[i + 1] & 0xFF;
        if (c == 0xE0
            ? (c1 < 0xA0 || c1 > 0xBF)
            : c == 0xED ? (c1 < 0x80 || c1 > 0x9F) : (c1 < 0x80 || c1 > 0xBF)) {
          return i;
        }
        if (!cont(b[i + 2])) {
          return i;
        }
        i += 3;
      } else if (c <= 0xF4) {
        if (i + 3 >= end) {
          return i;
        }
        int c1 = b[i + 1] & 0xFF;
        if (c == 0xF0
            ? (c1 < 0x90 || c1 > 0xBF)
            : c == 0xF4 ? (c1 < 0x80 || c1 > 0x8F) : (c1 < 0x80 || c1 > 0xBF)) {
          return i;
        }
        if (!cont(b[i + 2]) || !cont(b[i + 3])) {
          return i;
        }
        i += 4;
      } else {
        return i;
      }
    }
    return -1;
  }

  private static boolean cont(byte x) {
    return (x & 0xC0) == 0x80;
  }
}
