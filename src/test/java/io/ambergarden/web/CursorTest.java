package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.bus.PagePosition;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class CursorTest {
  static final Cursor CURSOR =
      new Cursor("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  static final String QUERY = "device|M-1|||100";
  static final PagePosition POS =
      new PagePosition(1_764_000_000_000L, 1_764_000_123_456L, "M-1", "evt-ä-7");

  @Test
  void roundTripKeepsThePosition() {
    String c = CURSOR.encode(QUERY, POS);
    assertThat(CURSOR.decode(QUERY, c)).contains(POS);
    assertThat(c).matches("[A-Za-z0-9_-]+");
    PagePosition start = PagePosition.bucketStart(5);
    assertThat(CURSOR.decode(QUERY, CURSOR.encode(QUERY, start))).contains(start);
    assertThat(start.atBucketStart()).isTrue();
    assertThat(POS.atBucketStart()).isFalse();
  }

  @Test
  void everyAlteredByteIsRejected() {
    byte[] raw = Base64.getUrlDecoder().decode(CURSOR.encode(QUERY, POS));
    for (int i = 0; i < raw.length; i++) {
      byte[] copy = raw.clone();
      copy[i] ^= 0x01;
      assertThat(CURSOR.decode(QUERY, Base64.getUrlEncoder().withoutPadding().encodeToString(copy)))
          .as("byte %d", i)
          .isEmpty();
    }
  }

  @Test
  void cursorOfAnotherQueryOrKeyIsRejected() {
    String c = CURSOR.encode(QUERY, POS);
    assertThat(CURSOR.decode("device|M-1|||101", c)).isEmpty();
    assertThat(CURSOR.decode("device|M-2|||100", c)).isEmpty();
    Cursor other = new Cursor("another-key-of-32-bytes-length!!".getBytes(StandardCharsets.UTF_8));
    assertThat(other.decode(QUERY, c)).isEmpty();
  }

  @Test
  void garbageIsRejectedWithoutExceptions() {
    for (String bad : new String[] {"", "x", "!!!", "AAAA", "a".repeat(3000), null}) {
      assertThat(CURSOR.decode(QUERY, bad)).isEmpty();
    }
    assertThatThrownBy(() -> new Cursor(new byte[8])).isInstanceOf(IllegalArgumentException.class);
  }
}
