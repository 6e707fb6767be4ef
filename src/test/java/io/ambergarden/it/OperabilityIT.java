package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.RealServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What an operator relies on: a clean SIGTERM, and the meters on /metrics. */
@ExtendWith(RealServers.class)
@Timeout(400)
class OperabilityIT {
  static final int PER_PARTITION = 15_000;
  static final int DEVICES_PER_PARTITION = 5;

  /** Unique per run, so rows of an earlier run on the same servers never count. */
  static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  static String device(int partition, long index) {
    return "term-" + RUN + "-" + partition + "-" + (index % DEVICES_PER_PARTITION);
  }

  @Test
  void sigtermDuringIngestLosesNothingAndCommitsExactlyWhatWasProcessed() throws Exception {
    String topic = "it-term-" + UUID.randomUUID().toString().substring(0, 8);
    String group = topic + "-group";
    Kafkas.createTopic(topic, 2);
    // half the events in the hour before this one, half in this one, with a row target that each
    // device's 1,500 rows of either hour pass: both hours are split into salted slices, which the
    // checks below must read (CI once missed rows this way, with a reader that ignored slices)
    long hour = 3_600_000L;
    long thisHour = (System.currentTimeMillis() / hour) * hour;
    long base = thisHour - PER_PARTITION / 2;
    try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      // a fresh topic: the i-th record sent to partition p gets offset i, named in its event id
      for (int i = 0; i < PER_PARTITION; i++) {
        for (int p = 0; p < 2; p++) {
          String d = device(p, i);
          producer.send(
              new ProducerRecord<>(
                  topic,
                  p,
                  d.getBytes(StandardCharsets.UTF_8),
                  ("{\"deviceId\":\""
                          + d
                          + "\",\"ts\":"
                          + (base + i)
                          + ",\"eventId\":\""
                          + i
                          + "\"}")
                      .getBytes(StandardCharsets.UTF_8)));
        }
      }
      producer.flush();
    }
    Map<String, String> cfg =
        Map.of(
            "kafka.topic",
            topic,
            "kafka.dlq-topic",
            topic + ".dlq",
            "kafka.group-id",
            group,
            "kafka.consumer.max-in-flight",
            "400",
            "kafka.consumer.write-batch",
            "100",
            "kafka.consumer.commit-interval",
            "1s",
            "hot.partition-rows",
            "1000");
    Map<Integer, Long> committed;
    try (ServiceProcess service = ServiceProcess.start("term", cfg)) {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> Kafkas.committedTotal(group, topic) >= 600);
      service.terminate(Duration.ofSeconds(60));
      assertThat(service.logText()).contains("stopped cleanly");
      committed = Kafkas.committed(group, topic);
    }
    assertThat(committed.values().stream().mapToLong(Long::longValue).sum())
        .as("SIGTERM must come mid-stream")
        .isLessThan(2L * PER_PARTITION);
    try (CqlSession cql = TestService.cql()) {
      for (int p = 0; p < 2; p++) {
        long c = committed.getOrDefault(p, 0L);
        Set<Long> written = written(cql, p, base);
        // nothing below the committed offset is missing, and nothing beyond it was processed
        assertThat(written)
            .as("partition %d, committed %d", p, c)
            .isEqualTo(LongStream.range(0, c).boxed().collect(Collectors.toSet()));
      }
    }
    try (TestService resumed = TestService.start(cfg)) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Kafkas.committedTotal(group, topic) == 2L * PER_PARTITION);
    }
    try (CqlSession cql = TestService.cql()) {
      for (int p = 0; p < 2; p++) {
        assertThat(written(cql, p, base)).hasSize(PER_PARTITION);
      }
      for (long bucket : new long[] {thisHour - hour, thisHour}) {
        assertThat(
                StoredSlices.of(
                    cql.execute(StoredSlices.query(TestService.KEYSPACE, device(0, 0), bucket))))
            .as("slices of bucket %s", java.time.Instant.ofEpochMilli(bucket))
            .isNotEmpty();
      }
    }
  }

  static Set<Long> written(CqlSession cql, int partition, long base) {
    Set<Long> out = new HashSet<>();
    for (int d = 0; d < DEVICES_PER_PARTITION; d++) {
      CassandraOutageIT.rowsByEventId(cql, device(partition, d), base)
          .keySet()
          .forEach(id -> out.add(Long.parseLong(id)));
    }
    return out;
  }

  /**
   * A sample line of the meter, with the label when given (Prometheus sorts labels, so any
   * position).
   */
  static boolean hasMeter(String body, String name, String label) {
    String line =
        "(?m)^"
            + java.util.regex.Pattern.quote(name)
            + (label == null ? "[{ ]" : "\\{[^}]*" + java.util.regex.Pattern.quote(label));
    return java.util.regex.Pattern.compile(line).matcher(body).find();
  }

  @Test
  void metricsExposeTheServiceMetersAfterTraffic() throws Exception {
    String d = "metrics-" + UUID.randomUUID().toString().substring(0, 8);
    try (TestService s = TestService.start(Map.of("kafka.topic-partitions", "1"));
        LiveClient live = LiveClient.connect(s.port(), "devices=" + d)) {
      long now = System.currentTimeMillis();
      assertThat(
              s.postEvents(
                      "{\"deviceId\":\""
                          + d
                          + "\",\"ts\":"
                          + now
                          + ",\"code\":503,\"status\":\"x\"}")
                  .statusCode())
          .isEqualTo(202);
      assertThat(s.postEvents("{\"deviceId\":\"" + d + "\"}").statusCode()).isEqualTo(400);
      try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
        Kafkas.send(producer, s.topic(), d, "not json".getBytes(StandardCharsets.UTF_8));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> live.events().size() == 1);
      assertThat(s.get("/api/v1/devices/" + d + "/latest").statusCode()).isEqualTo(200);
      String[][] wanted = {
        {"amber_ingest_events_total", "path=\"http\""},
        {"amber_ingest_events_total", "path=\"kafka\""},
        {"amber_validation_failures_total", "path=\"http\""},
        {"amber_validation_failures_total", "path=\"kafka\""},
        {"amber_dead_letters_total", null},
        // one event's single-partition rows (detail, latest, by-type, bucket, abnormal) share one
        // replica batch
        {"amber_write_latency_seconds_bucket", "kind=\"grouped\""},
        {"jvm_memory_used_bytes", "area=\"heap\""},
        {"amber_cassandra_speculative_executions_total", null},
        {"amber_counter_flush_size_count", null},
        {"amber_counter_unknown_outcomes_total", null},
        {"amber_kafka_consumer_lag", "partition=\"0\""},
        {"amber_writes_in_flight", null},
        {"amber_live_clients", null},
        {"amber_live_disconnects_total", null},
        {"vertx_http_server_requests_total", null},
        {"vertx_eventbus_handlers", null},
        // the latest-state read above, at each of its stages
        {"amber_read_latency_seconds_bucket", "read=\"device-latest\",stage=\"http\""},
        {"amber_read_latency_seconds_bucket", "read=\"device-latest\",stage=\"query\""},
        {"amber_read_latency_seconds_bucket", "read=\"cql\",stage=\"cassandra\""}
      };
      // the lag gauge appears after the first lag sample (every 5 s)
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                String body = s.get("/metrics").body();
                for (String[] w : wanted) {
                  if (!hasMeter(body, w[0], w[1])) {
                    return false;
                  }
                }
                return true;
              });
      String body = s.get("/metrics").body();
      assertThat(body).as("no device ids in tags").doesNotContain(d);
      assertThat(body)
          .containsPattern(
              "(?m)^amber_read_latency_seconds_count\\{read=\"device-latest\",stage=\"http\"\\}"
                  + " [1-9]")
          .containsPattern(
              "(?m)^amber_read_latency_seconds_count\\{read=\"cql\",stage=\"cassandra\"\\}"
                  + " [1-9]");
      assertThat(hasMeter(body, "amber_live_clients", null)).isTrue();
      assertThat(hasMeter(body, "amber_no_such_meter", null)).isFalse();
    }
  }
}
