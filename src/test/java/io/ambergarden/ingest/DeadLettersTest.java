package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
  private static final String DLQ = "amber.events.dlq";

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static ConsumerRecord<byte[], byte[]> record(
      byte[] key, byte[] value, RecordHeaders headers) {
    return new ConsumerRecord<>(
        "amber.events",
        2,
        9526L,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        value,
        headers,
        Optional.empty());
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** A 5 MB JSON document, as a compressed record holds it once decompressed. */
  private static byte[] fiveMegabyteJson() {
    StringBuilder sb = new StringBuilder("{\"deviceId\":\"d-1\",\"ts\":1,\"payload\":{\"blob\":\"");
    sb.append("x".repeat(5 * 1024 * 1024 - 100));
    return utf8(sb.append("\"}}").toString());
  }

  @Test
  void aSmallRecordIsSentWholeFirstWithAllItsHeadersAndOurs() {
    RecordHeaders original = new RecordHeaders();
    original.add("traceparent", utf8("00-abc-01"));
    original.add("x-request-id", utf8("r-1"));
    ConsumerRecord<byte[], byte[]> rec = record(utf8("dev-1"), utf8("{\"deviceId\":"), original);

    List<DeadLetters.Letter> letters =
        DeadLetters.of(DLQ, rec, "InvalidDocument", "$: unexpected end");

    ProducerRecord<byte[], byte[]> letter = letters.get(0).record();
    assertThat(letters.get(0).shape()).isEqualTo(DeadLetters.Shape.WHOLE);
    assertThat(letter.topic()).isEqualTo(DLQ);
    assertThat(letter.key()).isEqualTo(rec.key());
    assertThat(letter.value()).isEqualTo(rec.value());
    List<String> names = Arrays.stream(letter.headers().toArray()).map(Header::key).toList();
    assertThat(names)
        .containsExactly(
            "traceparent",
            "x-request-id",
            DeadLetterHeaders.SOURCE_TOPIC,
            DeadLetterHeaders.SOURCE_PARTITION,
            DeadLetterHeaders.SOURCE_OFFSET,
            DeadLetterHeaders.ERROR_CLASS,
            DeadLetterHeaders.ERROR_MESSAGE);
    assertThat(header(letter, "traceparent")).isEqualTo("00-abc-01");
    assertThat(header(letter, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("9526");
    assertThat(header(letter, DeadLetterHeaders.ERROR_CLASS)).isEqualTo("InvalidDocument");
    // the consumed record is left as it was
    assertThat(rec.headers().toArray()).hasSize(2);
  }

  @Test
  void aRecordTooLargeToSendWholeIsCutToAPrefixWithItsSizeHashAndCoordinates() throws Exception {
    byte[] value = fiveMegabyteJson();
    RecordHeaders original = new RecordHeaders();
    original.add("traceparent", utf8("00-abc-01"));
    ConsumerRecord<byte[], byte[]> rec = record(utf8("d-1"), value, original);

    List<DeadLetters.Letter> letters = DeadLetters.of(DLQ, rec, "InvalidDocument", "too large");

    assertThat(letters)
        .extracting(DeadLetters.Letter::shape)
        .containsExactly(DeadLetters.Shape.TRUNCATED, DeadLetters.Shape.BARE);
    ProducerRecord<byte[], byte[]> cut = letters.get(0).record();
    assertThat(DeadLetters.size(cut)).isLessThanOrEqualTo(DeadLetters.MAX_LETTER_BYTES);
    assertThat(cut.value()).isEqualTo(Arrays.copyOf(value, DeadLetters.TRUNCATED_VALUE_BYTES));
    assertThat(cut.key()).isEqualTo(utf8("d-1"));
    assertThat(header(cut, "traceparent")).isEqualTo("00-abc-01");
    assertThat(header(cut, DeadLetterHeaders.TRUNCATED)).isEqualTo("value");
    assertThat(header(cut, DeadLetterHeaders.ORIGINAL_SIZE))
        .isEqualTo(Integer.toString(value.length));
    assertThat(header(cut, DeadLetterHeaders.ORIGINAL_SHA256)).isEqualTo(sha256(value));
    assertThat(header(cut, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("amber.events");
    assertThat(header(cut, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("2");
    assertThat(header(cut, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("9526");
    assertThat(header(cut, DeadLetterHeaders.ERROR_CLASS)).isEqualTo("InvalidDocument");

    ProducerRecord<byte[], byte[]> bare = letters.get(1).record();
    assertThat(bare.value()).isEmpty();
    assertThat(bare.headers().lastHeader("traceparent")).isNull();
    assertThat(header(bare, DeadLetterHeaders.TRUNCATED)).isEqualTo("value,headers");
    assertThat(header(bare, DeadLetterHeaders.ORIGINAL_SHA256)).isEqualTo(sha256(value));
    assertThat(header(bare, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("9526");
  }

  @Test
  void anOversizedKeyAndOversizedHeadersAreCutToo() {
    RecordHeaders original = new RecordHeaders();
    for (int i = 0; i < 40; i++) {
      original.add("h" + i, new byte[32 * 1024]);
    }
    byte[] key = new byte[200_000];
    ConsumerRecord<byte[], byte[]> rec = record(key, utf8("{}"), original);

    List<DeadLetters.Letter> letters = DeadLetters.of(DLQ, rec, "InvalidEvent", "bad");

    ProducerRecord<byte[], byte[]> first = letters.get(0).record();
    assertThat(letters.get(0).shape()).isEqualTo(DeadLetters.Shape.TRUNCATED);
    assertThat(header(first, DeadLetterHeaders.TRUNCATED)).isEqualTo("key,headers");
    assertThat(first.key()).hasSize(DeadLetters.MAX_KEY_BYTES);
    assertThat(first.value()).isEqualTo(utf8("{}"));
    assertThat(first.headers().lastHeader("h0")).isNull();
    assertThat(header(first, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo("2");
    assertThat(DeadLetters.size(first)).isLessThan(DeadLetters.MAX_LETTER_BYTES);
  }

  @Test
  void eachLetterToTryIsSmallerThanTheOneBeforeAndTheLastIsBare() {
    byte[] random = new byte[4096];
    new java.util.Random(7).nextBytes(random);
    for (byte[] value : List.of(random, fiveMegabyteJson(), new byte[0])) {
      List<DeadLetters.Letter> letters =
          DeadLetters.of(DLQ, record(utf8("k"), value, new RecordHeaders()), "X", "m");
      for (int i = 1; i < letters.size(); i++) {
        assertThat(DeadLetters.size(letters.get(i).record()))
            .isLessThan(DeadLetters.size(letters.get(i - 1).record()));
      }
      assertThat(letters.get(0).record().value()).hasSizeLessThanOrEqualTo(value.length);
    }
    List<DeadLetters.Letter> small =
        DeadLetters.of(DLQ, record(utf8("k"), random, new RecordHeaders()), "X", "m");
    assertThat(small)
        .extracting(DeadLetters.Letter::shape)
        .containsExactly(DeadLetters.Shape.WHOLE, DeadLetters.Shape.BARE);
  }

  @Test
  void aNullValueIsSentWholeAsANullValue() {
    List<DeadLetters.Letter> letters =
        DeadLetters.of(DLQ, record(utf8("k"), null, new RecordHeaders()), "InvalidDocument", "m");
    assertThat(letters.get(0).shape()).isEqualTo(DeadLetters.Shape.WHOLE);
    assertThat(letters.get(0).record().value()).isNull();
  }
}
