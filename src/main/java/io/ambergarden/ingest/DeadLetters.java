package io.ambergarden.ingest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The dead letters one record may get, largest first. A poison record can be larger than any letter
 * the producer may send (its value, a compressed record once decompressed, its key or its headers),
 * or larger than the dead-letter topic takes, so the writer tries these in turn:
 *
 * <ul>
 *   <li>{@link Shape#WHOLE}: the original key, value and headers, then ours; only when it fits
 *       {@link #MAX_LETTER_BYTES};
 *   <li>{@link Shape#TRUNCATED}: the first {@link #TRUNCATED_VALUE_BYTES} of the value, the key cut
 *       to {@link #MAX_KEY_BYTES}, the original headers only if they total at most {@link
 *       #MAX_KEPT_HEADER_BYTES};
 *   <li>{@link Shape#BARE}: an empty value and our headers only.
 * </ul>
 *
 * A cut letter carries {@link DeadLetterHeaders#TRUNCATED} (what was cut), {@link
 * DeadLetterHeaders#ORIGINAL_SIZE} and {@link DeadLetterHeaders#ORIGINAL_SHA256} of the value, and
 * like every letter the source coordinates, so the original can be found and checked.
 */
final class DeadLetters {
  /**
   * Largest letter sent whole: the producer's max.request.size (1 MiB, which it checks on the
   * uncompressed record) less room for the batch overhead.
   */
  static final int MAX_LETTER_BYTES = 1024 * 1024 - 64 * 1024;

  static final int TRUNCATED_VALUE_BYTES = 16 * 1024;
  static final int MAX_KEY_BYTES = 1024;
  static final int MAX_KEPT_HEADER_BYTES = 16 * 1024;

  /** Bytes a record costs beyond its key, value and header bytes: varints and attributes. */
  private static final int RECORD_OVERHEAD = 64;

  private static final int HEADER_OVERHEAD = 10;

  enum Shape {
    WHOLE,
    TRUNCATED,
    BARE
  }

  record Letter(Shape shape, ProducerRecord<byte[], byte[]> record) {}

  private DeadLetters() {}

  /** The letters to try for {@code rec}, largest first; never empty, each smaller than the last. */
  static List<Letter> of(
      String topic, ConsumerRecord<byte[], byte[]> rec, String errorClass, String message) {
    byte[] key = rec.key();
    byte[] value = rec.value() == null ? new byte[0] : rec.value();
    Header[] original = rec.headers().toArray();
    List<Letter> out = new ArrayList<>(3);

    ProducerRecord<byte[], byte[]> whole = whole(topic, rec, errorClass, message);
    if (size(whole) <= MAX_LETTER_BYTES) {
      out.add(new Letter(Shape.WHOLE, whole));
    }

    List<String> cut = new ArrayList<>();
    byte[] prefix = value;
    if (value.length > TRUNCATED_VALUE_BYTES) {
      prefix = Arrays.copyOf(value, TRUNCATED_VALUE_BYTES);
      cut.add("value");
    }
    byte[] shortKey = key;
    if (key != null && key.length > MAX_KEY_BYTES) {
      shortKey = Arrays.copyOf(key, MAX_KEY_BYTES);
      cut.add("key");
    }
    Header[] kept = original;
    if (headerBytes(original) > MAX_KEPT_HEADER_BYTES) {
      kept = new Header[0];
      cut.add("headers");
    }
    String hash = sha256(value);
    if (!cut.isEmpty()) {
      addIfSmaller(
          out,
          Shape.TRUNCATED,
          cutLetter(
              topic, rec, shortKey, prefix, kept, cut, value.length, hash, errorClass, message));
    }

    List<String> bareCut = new ArrayList<>();
    if (value.length > 0) {
      bareCut.add("value");
    }
    if (shortKey != key) {
      bareCut.add("key");
    }
    if (original.length > 0) {
      bareCut.add("headers");
    }
    addIfSmaller(
        out,
        Shape.BARE,
        cutLetter(
            topic,
            rec,
            shortKey,
            new byte[0],
            new Header[0],
            bareCut,
            value.length,
            hash,
            errorClass,
            message));
    return out;
  }

  /** The whole letter of {@code rec}: same key and value, its headers and then ours. */
  static ProducerRecord<byte[], byte[]> whole(
      String topic, ConsumerRecord<byte[], byte[]> rec, String errorClass, String message) {
    RecordHeaders headers = new RecordHeaders(rec.headers().toArray());
    addOurs(headers, rec, errorClass, message);
    return new ProducerRecord<>(topic, null, rec.key(), rec.value(), headers);
  }

  private static ProducerRecord<byte[], byte[]> cutLetter(
      String topic,
      ConsumerRecord<byte[], byte[]> rec,
      byte[] key,
      byte[] value,
      Header[] kept,
      List<String> cut,
      int originalSize,
      String hash,
      String errorClass,
      String message) {
    RecordHeaders headers = new RecordHeaders(kept);
    addOurs(headers, rec, errorClass, message);
    headers
        .add(DeadLetterHeaders.TRUNCATED, utf8(String.join(",", cut)))
        .add(DeadLetterHeaders.ORIGINAL_SIZE, utf8(Integer.toString(originalSize)))
        .add(DeadLetterHeaders.ORIGINAL_SHA256, utf8(hash));
    return new ProducerRecord<>(topic, null, key, value, headers);
  }

  private static void addOurs(
      RecordHeaders headers, ConsumerRecord<?, ?> rec, String errorClass, String message) {
    headers
        .add(DeadLetterHeaders.SOURCE_TOPIC, utf8(rec.topic()))
        .add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(rec.partition())))
        .add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(rec.offset())))
        .add(DeadLetterHeaders.ERROR_CLASS, utf8(errorClass))
        .add(DeadLetterHeaders.ERROR_MESSAGE, utf8(message));
  }

  private static void addIfSmaller(
      List<Letter> out, Shape shape, ProducerRecord<byte[], byte[]> letter) {
    if (out.isEmpty() || size(letter) < size(out.get(out.size() - 1).record())) {
      out.add(new Letter(shape, letter));
    }
  }

  /** An upper bound of the letter's uncompressed size, as the producer measures it. */
  static int size(ProducerRecord<byte[], byte[]> r) {
    long n = RECORD_OVERHEAD;
    n += r.key() == null ? 0 : r.key().length;
    n += r.value() == null ? 0 : r.value().length;
    n += headerBytes(r.headers().toArray());
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  private static long headerBytes(Header[] headers) {
    long n = 0;
    for (Header h : headers) {
      n += HEADER_OVERHEAD + utf8(h.key()).length + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }

  static String sha256(byte[] value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
