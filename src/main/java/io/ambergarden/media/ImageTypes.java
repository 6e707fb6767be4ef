package io.ambergarden.media;

import java.util.Locale;
import java.util.Set;

/**
 * The image types accepted, and what their leading bytes look like. A client's Content-Type is only
 * a claim: the bytes are checked against it before any of them reach the object store.
 */
public final class ImageTypes {
  public static final String JPEG = "image/jpeg";
  public static final String PNG = "image/png";
  public static final String WEBP = "image/webp";
  public static final Set<String> SUPPORTED = Set.of(JPEG, PNG, WEBP);

  /** Bytes needed to tell every supported type apart (WebP: "RIFF", size, "WEBP"). */
  public static final int SNIFF_BYTES = 12;

  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  private ImageTypes() {}

  /** The declared media type without parameters, lower case, if supported; else null. */
  public static String declared(String contentType) {
    if (contentType == null) {
      return null;
    }
    String mime = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return SUPPORTED.contains(mime) ? mime : null;
  }

  /** The supported type the first {@code length} bytes of {@code head} show, or null. */
  public static String sniff(byte[] head, int length) {
    if (length >= 3
        && (head[0] & 0xff) == 0xff
        && (head[1] & 0xff) == 0xd8
        && (head[2] & 0xff) == 0xff) {
      return JPEG;
    }
    if (length >= PNG_SIGNATURE.length && startsWith(head, PNG_SIGNATURE, 0)) {
      return PNG;
    }
    if (length >= SNIFF_BYTES
        && startsWith(head, new byte[] {'R', 'I', 'F', 'F'}, 0)
        && startsWith(head, new byte[] {'W', 'E', 'B', 'P'}, 8)) {
      return WEBP;
    }
    return null;
  }

  private static boolean startsWith(byte[] data, byte[] prefix, int at) {
    for (int i = 0; i < prefix.length; i++) {
      if (data[at + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
