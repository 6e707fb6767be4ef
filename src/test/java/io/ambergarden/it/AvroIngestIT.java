package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.ingest.DeadLetterHeaders;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Avro single-object records and JSON on the same amber.events topic: both are stored, a record
 * written with schema v1 is read after v2, and an unknown fingerprint or undecodable bytes are
 * dead-lettered as UnknownSchema or InvalidDocument while later records still land.
 */
@ExtendWith(RealServers.class)
@Timeout(180)
class AvroIngestIT {
  static byte[] avro(Schema schema, String device, long ts, Map<String, Object> fields) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("deviceId", device);
    r.put("ts", ts);
    if (schema.getField("metrics") != null) {
      r.put("metrics", Map.of("temperature", 21.5));
      r.put("tags", Map.of());
    }
    fields.forEach(r::put);
    try {
      ByteBuffer b = AvroEvents.encoder(schema).encode(r);
      return Arrays.copyOfRange(
          b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonObject latest(TestService s, String device) {
    var r = s.get("/api/v1/devices/" + device + "/latest");
    return r.statusCode() == 200 ? new JsonObject(r.body()) : null;
  }

  @Test
  void avroAndJsonLandAndBadAvroIsDeadLettered() {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String v1Device = "avro1-" + run;
    String v2Device = "avro2-" + run;
    String jsonDevice = "json-" + run;
    long now = System.currentTimeMillis();
    byte[] v1 = avro(AvroEvents.version(1), v1Device, now, Map.of("status", "normal"));
    byte[] v2 =
        avro(
            AvroEvents.latest(),
            v2Device,
            now,
            Map.of("status", "fault", "code", 503, "site", "plant-3"));
    byte[] json =
        ("{\"deviceId\":\"" + jsonDevice + "\",\"ts\":" + now + ",\"status\":\"normal\"}")
            .getBytes(StandardCharsets.UTF_8);
    Schema unknown =
        SchemaBuilder.record("DeviceEvent")
            .namespace("io.ambergarden.avro")
            .fields()
            .requiredString("deviceId")
            .requiredLong("ts")
            .endRecord();
    byte[] unknownSchema = avro(unknown, "x-" + run, now, Map.of());
    byte[] truncated = Arrays.copyOf(v1, 13);

    try (TestService s = TestService.start(Map.of());
        KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      for (byte[] value : List.of(unknownSchema, truncated, v1, v2, json)) {
        Kafkas.send(producer, s.topic(), run, value);
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  latest(s, v1Device) != null
                      && latest(s, v2Device) != null
                      && latest(s, jsonDevice) != null);
      assertThat(latest(s, v1Device).getString("status")).isEqualTo("normal");
      JsonObject fromV2 = latest(s, v2Device);
      assertThat(fromV2.getInteger("code")).isEqualTo(503);
      assertThat(fromV2.getJsonObject("tags").getString("site")).isEqualTo("plant-3");
      assertThat(fromV2.getJsonObject("metrics").getDouble("temperature")).isEqualTo(21.5);

      List<ConsumerRecord<byte[], byte[]>> dead =
          Kafkas.readAll(s.dlqTopic(), 2, Duration.ofSeconds(20));
      assertThat(dead).hasSize(2);
      ConsumerRecord<byte[], byte[]> first = dead.get(0);
      ConsumerRecord<byte[], byte[]> second = dead.get(1);
      // one partition (same key), so the dead letters keep the records' order
      assertThat(first.value()).isEqualTo(unknownSchema);
      assertThat(Kafkas.header(first, DeadLetterHeaders.ERROR_CLASS)).isEqualTo("UnknownSchema");
      assertThat(second.value()).isEqualTo(truncated);
      assertThat(Kafkas.header(second, DeadLetterHeaders.ERROR_CLASS)).isEqualTo("InvalidDocument");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Kafkas.committedTotal(s.config().kafka().groupId(), s.topic()) == 5);
    }
  }
}
