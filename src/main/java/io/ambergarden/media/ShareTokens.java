package io.ambergarden.media;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Share links are bearer tokens: 144 random bits, base64url (24 characters). Only their SHA-256 is
 * stored, so a read of the table does not hand out working links.
 */
public final class ShareTokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern FORMAT = Pattern.compile("[A-Za-z0-9_-]{24}");

  private ShareTokens() {}

  public static String newToken() {
    byte[] bytes = new byte[18];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** False for anything that cannot be one of our tokens (answered 404 without a read). */
  public static boolean wellFormed(String token) {
    return token != null && FORMAT.matcher(token).matches();
  }

  /** What the share table is keyed by. */
  public static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(token.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
