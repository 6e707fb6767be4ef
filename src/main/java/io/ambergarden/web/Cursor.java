package io.ambergarden.web;

import io.ambergarden.bus.PagePosition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opaque keyset cursors: a position (bucket, ts, and the tie-break keys of the last row) bound to
 * the query it was issued for, HMAC-SHA256 signed. A forged, altered, or other-query cursor does
 * not verify. Layout before base64url: version, position fields, 16 bytes of the query's hash, then
 * 32 bytes of MAC.
 */
public final class Cursor {
  private static final byte VERSION = 1;
  private static final int QUERY_HASH_BYTES = 16;
  private static final int MAC_BYTES = 32;
  private static final int MAX_KEY_BYTES = 512;
  private final SecretKeySpec key;

  public Cursor(byte[] secret) {
    if (secret.length < 16) {
      throw new IllegalArgumentException("cursor key must have at least 16 bytes");
    }
    this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
  }

  /**
   * {@code query} names the query and its parameters as the client sent them, e.g.
   * "device|M-1|from|to|limit".
   */
  public String encode(String query, PagePosition p) {
    byte[] k1 = p.key1().getBytes(StandardCharsets.UTF_8);
    byte[] k2 = p.key2().getBytes(StandardCharsets.UTF_8);
    ByteBuffer b =
        ByteBuffer.allocate(
            1 + 8 + 8 + 2 + k1.length + 2 + k2.length + QUERY_HASH_BYTES + MAC_BYTES);
    b.put(VERSION)
        .putLong(p.bucket())
        .putLong(p.ts())
        .putShort((short) k1.length)
        .put(k1)
        .putShort((short) k2.length)
        .put(k2)
        .put(queryHash(query));
    b.put(mac(b.array(), b.position()));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  /**
   * The position, or empty when the cursor is malformed, forged, altered, or was issued for another
   * query.
   */
  public Optional<PagePosition> decode(String query, String cursor) {
    if (cursor == null || cursor.length() > 2048) {
      return Optional.empty();
    }
    byte[] raw;
    try {
      raw = Base64.getUrlDecoder().decode(cursor);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (raw.length < 1 + 8 + 8 + 2 + 2 + QUERY_HASH_BYTES + MAC_BYTES) {
      return Optional.empty();
    }
    int signed = raw.length - MAC_BYTES;
    byte[] expectedMac = mac(raw, signed);
    byte[] givenMac = java.util.Arrays.copyOfRange(raw, signed, raw.length);
    if (!MessageDigest.isEqual(expectedMac, givenMac)) {
      return Optional.empty();
    }
    ByteBuffer b = ByteBuffer.wrap(raw, 0, signed);
    if (b.get() != VERSION) {
      return Optional.empty();
    }
    long bucket = b.getLong();
    long ts = b.getLong();
    String k1 = readString(b);
    String k2 = k1 == null ? null : readString(b);
    if (k2 == null || b.remaining() != QUERY_HASH_BYTES) {
      return Optional.empty();
    }
    byte[] hash = new byte[QUERY_HASH_BYTES];
    b.get(hash);
    if (!MessageDigest.isEqual(hash, queryHash(query))) {
      return Optional.empty();
    }
    return Optional.of(new PagePosition(bucket, ts, k1, k2));
  }

  private static String readString(ByteBuffer b) {
    if (b.remaining() < 2) {
      return null;
    }
    int len = b.getShort();
    if (len < 0 || len > MAX_KEY_BYTES || b.remaining() < len) {
      return null;
    }
    byte[] s = new byte[len];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private byte[] mac(byte[] data, int length) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(key);
      m.update(data, 0, length);
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] queryHash(String query) {
    try {
      byte[] full =
          MessageDigest.getInstance("SHA-256").digest(query.getBytes(StandardCharsets.UTF_8));
      return java.util.Arrays.copyOf(full, QUERY_HASH_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
