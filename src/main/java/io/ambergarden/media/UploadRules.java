package io.ambergarden.media;

import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an upload's headers decide before a byte of its body is read: the declared type must be
 * supported (415), the length known (411: the object store needs it up front, and a known length
 * lets 413 come before the body), positive (400) and within the limit (413).
 */
public final class UploadRules {
  private static final Pattern DIGEST_SHA256 =
      Pattern.compile("(?:^|,)\\s*sha-256\\s*=\\s*:([A-Za-z0-9+/=]+):", Pattern.CASE_INSENSITIVE);

  /** An accepted upload's type and length, or a refusal with its status, field and reason. */
  public record Admission(String contentType, long length, int status, String field, String error) {
    public boolean ok() {
      return error == null;
    }

    static Admission refuse(int status, String field, String error) {
      return new Admission(null, -1, status, field, error);
    }
  }

  private UploadRules() {}

  public static Admission admit(
      String contentType, String contentLength, String transferEncoding, long maxBytes) {
    String type = ImageTypes.declared(contentType);
    if (type == null) {
      return Admission.refuse(
          415, "Content-Type", "must be one of image/jpeg, image/png or image/webp");
    }
    if (contentLength == null
        || (transferEncoding != null
            && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked"))) {
      return Admission.refuse(
          411, "Content-Length", "is required: send the image with its length, not chunked");
    }
    long length;
    try {
      length = Long.parseLong(contentLength.trim());
    } catch (NumberFormatException e) {
      return Admission.refuse(400, "Content-Length", "must be a whole number of bytes");
    }
    if (length <= 0) {
      return Admission.refuse(400, "Content-Length", "an image has at least one byte");
    }
    if (length > maxBytes) {
      return Admission.refuse(
          413, "Content-Length", "is " + length + " bytes; the most accepted is " + maxBytes);
    }
    return new Admission(type, length, 0, null, null);
  }

  /**
   * The SHA-256 a client announced in an RFC 9530 {@code Content-Digest} header, as lower-case hex;
   * null when the header is absent or names no sha-256; "" when the value is malformed.
   */
  public static String announcedSha256(String contentDigest) {
    if (contentDigest == null) {
      return null;
    }
    Matcher m = DIGEST_SHA256.matcher(contentDigest);
    if (!m.find()) {
      return null;
    }
    try {
      byte[] raw = Base64.getDecoder().decode(m.group(1));
      return raw.length == 32 ? HexFormat.of().formatHex(raw) : "";
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
