package io.ambergarden.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * API key text: {@code amb_<16 hex id>_<43 base64url chars>}. The id finds the stored record; the
 * secret (256 random bits) is stored only as its SHA-256, which is enough for a secret with that
 * much entropy (a slow password hash protects guessable passwords, not random keys).
 */
public final class ApiKeys {
  public static final String PREFIX = "amb_";
  private static final Pattern ID = Pattern.compile("[0-9a-f]{16}");
  private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9_-]{43}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private ApiKeys() {}

  /** A presented key, split into its id and secret. */
  public record Presented(String id, String secret) {
    @Override
    public String toString() {
      return "Presented[id=" + id + ", secret=******]";
    }
  }

  /** A new key: its text (shown once) and the id and hash that are stored. */
  public record Minted(String id, String text, byte[] hash) {
    @Override
    public String toString() {
      return "Minted[id=" + id + ", text=******]";
    }
  }

  public static Minted mint() {
    byte[] idBytes = new byte[8];
    byte[] secretBytes = new byte[32];
    RANDOM.nextBytes(idBytes);
    RANDOM.nextBytes(secretBytes);
    String id = HexFormat.of().formatHex(idBytes);
    String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(secretBytes);
    return new Minted(id, PREFIX + id + "_" + secret, hash(secret));
  }

  /** True when the text has the shape of one of our keys (not that it is valid). */
  public static boolean looksLikeKey(String text) {
    return text != null && text.startsWith(PREFIX);
  }

  public static Optional<Presented> parse(String text) {
    if (text == null || text.length() != PREFIX.length() + 16 + 1 + 43) {
      return Optional.empty();
    }
    String id = text.substring(PREFIX.length(), PREFIX.length() + 16);
    String secret = text.substring(PREFIX.length() + 17);
    if (!text.startsWith(PREFIX)
        || text.charAt(PREFIX.length() + 16) != '_'
        || !ID.matcher(id).matches()
        || !SECRET.matcher(secret).matches()) {
      return Optional.empty();
    }
    return Optional.of(new Presented(id, secret));
  }

  public static boolean validId(String id) {
    return id != null && ID.matcher(id).matches();
  }

  public static byte[] hash(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** Constant-time comparison of the presented secret's hash with the stored one. */
  public static boolean matches(Presented presented, byte[] storedHash) {
    return storedHash != null && MessageDigest.isEqual(hash(presented.secret()), storedHash);
  }
}
