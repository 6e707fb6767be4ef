package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeadLetterWriterTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aDeadLetterKeepsTheOriginalKeyValueAndHeadersThenAddsOurs() {
    RecordHeaders original = new RecordHeaders();
    original.add("traceparent", utf8("00-abc-01"));
    original.add("x-request-id", utf8("r-1"));
    ConsumerRecord<byte[], byte[]> rec =
        new ConsumerRecord<>(
            "amber.events",
            3,
            42L,
            0L,
            TimestampType.CREATE_TIME,
            0,
            0,
            utf8("dev-1"),
            utf8("{\"deviceId\":"),
            original,
            Optional.empty());

    ProducerRecord<byte[], byte[]> letter =
        DeadLetterWriter.letter("amber.events.dlq", rec, "StoreRejected", "too large");

    assertThat(letter.topic()).isEqualTo("amber.events.dlq");
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
    assertThat(letter.headers().lastHeader("traceparent").value()).isEqualTo(utf8("00-abc-01"));
    assertThat(letter.headers().lastHeader(DeadLetterHeaders.SOURCE_OFFSET).value())
        .isEqualTo(utf8("42"));
    assertThat(letter.headers().lastHeader(DeadLetterHeaders.ERROR_CLASS).value())
        .isEqualTo(utf8("StoreRejected"));
    // the consumed record is left as it was
    assertThat(rec.headers().toArray()).hasSize(2);
  }
}
