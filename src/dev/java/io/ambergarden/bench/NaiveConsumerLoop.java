package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.write.CqlStatements;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * (c) The naive baseline, the textbook consumer: a plain KafkaConsumer; per record, parse the JSON
 * and execute the detail and latest inserts synchronously, one at a time; commitSync once per poll
 * batch.
 */
final class NaiveConsumerLoop {
  private static final long HOUR = 3_600_000L;
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);

  private final CqlSession session;
  private final PreparedStatement detail;
  private final PreparedStatement latest;
  private final AtomicLong eventsDone = new AtomicLong();

  NaiveConsumerLoop(CqlSession session, String keyspace) {
    this.session = session;
    CqlStatements cql = new CqlStatements(keyspace);
    this.detail = session.prepare(cql.insertDetail());
    this.latest = session.prepare(cql.upsertLatest());
  }

  long eventsDone() {
    return eventsDone.get();
  }

  /**
   * Consumes until {@code expected} records are written or {@code maxDuration} has passed since the
   * first record.
   */
  RawWriteLoop.Result run(
      String bootstrap,
      String topic,
      long expected,
      Duration maxDuration,
      RawWriteLoop.Progress progress) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", topic + "-naive");
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    int ttl = (int) Duration.ofDays(180).toSeconds();
    long rows = 0;
    long done = 0;
    long t0 = 0;
    long joinDeadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (done < expected && (t0 == 0 || System.nanoTime() - t0 < maxDuration.toNanos())) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        if (records.isEmpty()) {
          if (t0 == 0 && System.nanoTime() > joinDeadline) {
            throw new IllegalStateException(
                "naive consumer got no records within " + JOIN_TIMEOUT.toSeconds() + " s");
          }
          continue;
        }
        if (t0 == 0) {
          t0 = System.nanoTime(); // like (b), the group join and first fetch are not measured
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
          JsonObject e = new JsonObject(Buffer.buffer(record.value()));
          String deviceId = e.getString("deviceId");
          long tsMillis = e.getLong("ts");
          String eventId = e.getString("eventId");
          Instant ts = Instant.ofEpochMilli(tsMillis);
          Map<String, Double> metrics = metrics(e.getJsonObject("metrics"));
          session.execute(
              detail
                  .bind(
                      deviceId,
                      Instant.ofEpochMilli(tsMillis / HOUR * HOUR),
                      ts,
                      eventId,
                      e.getString("deviceType"),
                      e.getString("status"),
                      e.getInteger("code"),
                      metrics,
                      null,
                      null,
                      ttl)
                  .unset(8)
                  .unset(9)
                  .setConsistencyLevel(DefaultConsistencyLevel.LOCAL_QUORUM));
          session.execute(
              latest
                  .bind(
                      deviceId,
                      ts,
                      eventId,
                      e.getString("deviceType"),
                      e.getString("status"),
                      e.getInteger("code"),
                      metrics,
                      Map.of(),
                      null,
                      RowKeys.eventTimeWriteTimestamp(tsMillis, eventId),
                      ttl)
                  .setConsistencyLevel(DefaultConsistencyLevel.LOCAL_QUORUM));
          rows += 2;
          eventsDone.incrementAndGet();
          if (++done % 10_000 == 0 && progress != null) {
            progress.report("naive", done, expected, t0);
          }
        }
        consumer.commitSync();
      }
      // measured before close(): leaving the group is not part of the work
      return new RawWriteLoop.Result(done, rows, (System.nanoTime() - t0) / 1e9);
    }
  }

  private static Map<String, Double> metrics(JsonObject json) {
    Map<String, Double> out = new HashMap<>();
    json.forEach(entry -> out.put(entry.getKey(), ((Number) entry.getValue()).doubleValue()));
    return out;
  }
}
