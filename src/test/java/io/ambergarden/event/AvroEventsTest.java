package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.ingest.DeadLetterHeaders;
import io.ambergarden.ingest.RecordDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class AvroEventsTest {
  static final long NOW = Instant.parse("2026-12-03T12:00:00Z").toEpochMilli();
  static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
  final AvroEvents avro = new AvroEvents(EventLimits.defaults(), CLOCK);

  static GenericRecord record(Schema schema, String deviceId, long ts) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("deviceId", deviceId);
    r.put("ts", ts);
    r.put("metrics", Map.of());
    r.put("tags", Map.of());
    return r;
  }

  static byte[] encode(GenericRecord r) throws IOException {
    ByteBuffer b = AvroEvents.encoder(r.getSchema()).encode(r);
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void theSchemaListIsTheAvroFolderOldestFirst() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("schema/avro"))) {
      assertThat(AvroEvents.SCHEMAS)
          .isEqualTo(files.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void aVersion2RecordBecomesTheSameEventAsItsJson() throws IOException {
    GenericRecord r = record(AvroEvents.version(2), "M-10086", NOW - 1000);
    r.put("eventId", "e-1");
    r.put("deviceType", "charger");
    r.put("status", "fault");
    r.put("code", 503);
    r.put("metrics", Map.of("temperature", 36.5));
    r.put("tags", Map.of("line", "a"));
    r.put("payload", "{ \"a\" : [1, 2] }");
    r.put("site", "plant-3");
    byte[] bytes = encode(r);
    assertThat(AvroEvents.isSingleObject(bytes)).isTrue();

    EventParser.SingleResult got = avro.decode(bytes);
    assertThat(got.errors()).isEmpty();
    assertThat(got.event())
        .isEqualTo(
            new Event(
                "M-10086",
                NOW - 1000,
                "e-1",
                "charger",
                "fault",
                503,
                Map.of("temperature", 36.5),
                Map.of("line", "a", "site", "plant-3"),
                "{\"a\":[1,2]}"));
  }

  @Test
  void aRecordWrittenWithVersion1IsReadAfterVersion2AddedAnOptionalField() throws IOException {
    Schema v1 = AvroEvents.version(1);
    assertThat(v1.getField("site")).isNull();
    assertThat(AvroEvents.latest().getField("site")).isNotNull();
    GenericRecord old = record(v1, "M-1", NOW);
    old.put("status", "normal");
    byte[] bytes = encode(old);
    // the record carries the v1 fingerprint, not the reader's
    assertThat(Arrays.copyOfRange(bytes, 2, 10))
        .isEqualTo(
            ByteBuffer.allocate(8)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(AvroEvents.fingerprint(v1))
                .array());

    EventParser.SingleResult got = avro.decode(bytes);
    assertThat(got.errors()).isEmpty();
    assertThat(got.event().status()).isEqualTo("normal");
    assertThat(got.event().tags()).isEmpty();
  }

  @Test
  void anUnknownFingerprintIsAnUnknownSchemaDeadLetter() throws IOException {
    Schema v3 =
        SchemaBuilder.record("DeviceEvent")
            .namespace("io.ambergarden.avro")
            .fields()
            .requiredString("deviceId")
            .requiredLong("ts")
            .requiredString("firmware")
            .endRecord();
    GenericRecord r = new GenericData.Record(v3);
    r.put("deviceId", "M-1");
    r.put("ts", NOW);
    r.put("firmware", "1.2");
    EventParser.SingleResult got = avro.decode(encode(r));
    assertThat(got.ok()).isFalse();
    assertThat(got.errors()).extracting(FieldError::field).containsExactly("$schema");
    assertThat(DeadLetterHeaders.errorClass(got.errors())).isEqualTo("UnknownSchema");
  }

  @Test
  void bytesThatDoNotDecodeAreAnInvalidDocument() throws IOException {
    byte[] good = encode(record(AvroEvents.latest(), "M-1", NOW));
    EventParser.SingleResult got = avro.decode(Arrays.copyOf(good, 12));
    assertThat(got.ok()).isFalse();
    assertThat(DeadLetterHeaders.errorClass(got.errors())).isEqualTo("InvalidDocument");
  }

  @Test
  void aHugeDeclaredLengthIsRefusedNotAllocated() throws IOException {
    byte[] good = encode(record(AvroEvents.latest(), "M-1", NOW));
    // the body starts with deviceId's length (zig-zag varint); claim 1.5 GB instead
    byte[] header = Arrays.copyOf(good, 10);
    long zigzag = 1_500_000_000L << 1;
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.write(header);
    while ((zigzag & ~0x7FL) != 0) {
      out.write((int) ((zigzag & 0x7F) | 0x80));
      zigzag >>>= 7;
    }
    out.write((int) zigzag);
    out.write("M-1".getBytes(StandardCharsets.UTF_8));
    EventParser.SingleResult got = avro.decode(out.toByteArray());
    assertThat(DeadLetterHeaders.errorClass(got.errors())).isEqualTo("InvalidDocument");
  }

  @Test
  void theJsonRulesApplyWithTheirFieldNames() throws IOException {
    GenericRecord r = record(AvroEvents.latest(), "bad id!", NOW / 1000);
    r.put("metrics", Map.of("t", Double.NaN));
    r.put("payload", "{not json");
    r.put("code", 1_000_000);
    EventParser.SingleResult got = avro.decode(encode(r));
    assertThat(got.errors())
        .extracting(FieldError::field)
        .contains("deviceId", "ts", "metrics.t", "payload", "code");
    assertThat(got.errors())
        .filteredOn(e -> e.field().equals("ts"))
        .extracting(FieldError::message)
        .containsExactly(EventParser.MSG_TS_SECONDS);
    assertThat(DeadLetterHeaders.errorClass(got.errors())).isEqualTo("InvalidEvent");
  }

  @Test
  void jsonAndAvroShareOneTopic() throws IOException {
    RecordDecoder decoder = new RecordDecoder(new EventParser(EventLimits.defaults(), CLOCK));
    byte[] json =
        ("{\"deviceId\":\"M-1\",\"ts\":" + NOW + ",\"status\":\"normal\"}")
            .getBytes(StandardCharsets.UTF_8);
    GenericRecord r = record(AvroEvents.latest(), "M-1", NOW);
    r.put("status", "normal");
    EventParser.SingleResult fromJson = decoder.decode(json);
    EventParser.SingleResult fromAvro = decoder.decode(encode(r));
    assertThat(fromJson.event()).isEqualTo(fromAvro.event());
    assertThat(decoder.decode(new byte[] {(byte) 0xC3, 0x01}).ok()).isFalse();
    assertThat(List.of(fromJson.ok(), fromAvro.ok())).containsOnly(true);
  }
}
