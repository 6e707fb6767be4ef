package io.ambergarden.chaos;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads everything back once the faults are healed and the workload stopped: waits for the consumer
 * group to catch up, then reads every device's events, latest state, counters and rollups through
 * the public HTTP API of one instance, the day counters, and the dead-letter topic.
 */
final class ChaosChecker {
  private final AckLedger ledger;
  private final String bootstrap;
  private final ChaosSystem system;
  private final int slot;
  private final Duration deadline;

  /** Reads through the instance in {@code slot}. */
  ChaosChecker(AckLedger ledger, ChaosSystem system, int slot, Duration deadline) {
    this.ledger = ledger;
    this.bootstrap = system.runtime().kafkaBootstrap();
    this.system = system;
    this.slot = slot;
    this.deadline = deadline;
  }

  void check(ChaosFindings f, String topic, String dlqTopic, String group) throws Exception {
    f.lag(awaitCaughtUp(group, topic));
    // counters are applied from the count journal after the acknowledgement: wait until it has
    // passed every acknowledgement of the run (all were before now)
    awaitCounted(System.currentTimeMillis());
    Map<String, Integer> rows = new HashMap<>();
    Map<String, String> latest = new HashMap<>();
    Map<String, Long> counters = new HashMap<>();
    long to = ledger.baseTs() + (long) ledger.events().size() * AckLedger.TS_STEP_MS + 1;
    for (String device : ledger.byDevice().keySet()) {
      readEvents(device, ledger.baseTs(), to, rows);
      HttpResponse<String> r = get("/api/v1/devices/" + device + "/latest");
      latest.put(
          device, r.statusCode() == 200 ? new JsonObject(r.body()).getString("eventId") : null);
      counters.put(device, json("/api/v1/devices/" + device + "/counters").getLong("total", 0L));
    }
    f.storedEvents(ledger, rows);
    f.latest(ledger, rows, latest);
    f.counters(ledger, counters, dayTotal(ledger.baseTs(), to));
    checkRollups(f, rows);
    readDeadLetters(f, dlqTopic);
  }

  private void readEvents(String device, long from, long to, Map<String, Integer> rows)
      throws IOException, InterruptedException {
    String cursor = null;
    do {
      String path =
          "/api/v1/devices/"
              + device
              + "/events?from="
              + from
              + "&to="
              + to
              + "&limit=1000"
              + (cursor == null
                  ? ""
                  : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
      JsonObject page = json(path);
      for (Object o : page.getJsonArray("items")) {
        rows.merge(((JsonObject) o).getString("eventId"), 1, Integer::sum);
      }
      cursor = page.getString("next");
    } while (cursor != null);
  }

  private void awaitCounted(long ackedBefore) throws IOException, InterruptedException {
    long end = System.currentTimeMillis() + deadline.toMillis();
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    while (System.currentTimeMillis() < end) {
      Long counted = json("/api/v1/stats/status?day=" + today).getLong("countedThrough");
      if (counted != null && counted >= ackedBefore) {
        return;
      }
      Thread.sleep(500);
    }
  }

  private long dayTotal(long from, long to) throws IOException, InterruptedException {
    LocalDate first = Instant.ofEpochMilli(from).atOffset(ZoneOffset.UTC).toLocalDate();
    LocalDate last = Instant.ofEpochMilli(to).atOffset(ZoneOffset.UTC).toLocalDate();
    return json("/api/v1/stats/status?from=" + first + "&to=" + last.plusDays(1))
        .getJsonObject("totals")
        .getLong("total", 0L);
  }

  /** Waits until every closed hour equals its stored events, or the deadline. */
  private void checkRollups(ChaosFindings f, Map<String, Integer> rows) throws Exception {
    long t0 = System.currentTimeMillis();
    Map<String, Map<Long, double[]>> expected = ChaosFindings.expectedRollups(ledger, rows, t0);
    int hours = expected.values().stream().mapToInt(Map::size).sum();
    List<String> notEqual = new ArrayList<>();
    long end = t0 + deadline.toMillis();
    Map<String, Map<Long, double[]>> pending = new TreeMap<>(expected);
    while (true) {
      notEqual.clear();
      for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
        var d = it.next();
        List<String> wrong = rollupsNotEqual(d.getKey(), d.getValue());
        if (wrong.isEmpty()) {
          it.remove();
        }
        notEqual.addAll(wrong);
      }
      if (notEqual.isEmpty() || System.currentTimeMillis() > end) {
        break;
      }
      // rollups of closed hours follow after the mark safety; polled with a deadline
      TimeUnit.SECONDS.sleep(2);
    }
    f.rollups(hours, notEqual, notEqual.isEmpty() ? System.currentTimeMillis() - t0 : -1);
  }

  private List<String> rollupsNotEqual(String device, Map<Long, double[]> hours)
      throws IOException, InterruptedException {
    long from = hours.keySet().stream().mapToLong(Long::longValue).min().orElseThrow();
    long to =
        hours.keySet().stream().mapToLong(Long::longValue).max().orElseThrow() + ChaosFindings.HOUR;
    Map<Long, JsonObject> served = new HashMap<>();
    JsonArray items =
        json("/api/v1/devices/" + device + "/rollups?from=" + from + "&to=" + to)
            .getJsonArray("items");
    for (Object o : items) {
      JsonObject item = (JsonObject) o;
      JsonObject metrics = item.getJsonObject("metrics");
      served.put(
          item.getLong("hour"), metrics == null ? null : metrics.getJsonObject("temperature"));
    }
    List<String> wrong = new ArrayList<>();
    for (var h : hours.entrySet()) {
      JsonObject got = served.get(h.getKey());
      if (!ChaosFindings.rollupMatches(got, h.getValue())) {
        double[] e = h.getValue();
        wrong.add(
            device
                + " "
                + Instant.ofEpochMilli(h.getKey())
                + ": served "
                + got
                + ", expected count "
                + (long) e[0]
                + " min "
                + e[1]
                + " max "
                + e[2]);
      }
    }
    return wrong;
  }

  private void readDeadLetters(ChaosFindings f, String dlqTopic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    Set<String> poison = new HashSet<>();
    long poisonRecords = 0;
    Map<String, Integer> other = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts =
          c.partitionsFor(dlqTopic, Duration.ofSeconds(30)).stream()
              .map(i -> new TopicPartition(dlqTopic, i.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = c.endOffsets(parts, Duration.ofSeconds(30));
      long end = System.currentTimeMillis() + deadline.toMillis();
      while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))
          && System.currentTimeMillis() < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofSeconds(1))) {
          Header h = r.headers().lastHeader(ChaosWorkload.POISON_HEADER);
          if (h != null) {
            poison.add(new String(h.value(), StandardCharsets.UTF_8));
            poisonRecords++;
          } else {
            Header cls = r.headers().lastHeader("amber.error.class");
            other.merge(
                cls == null ? "?" : new String(cls.value(), StandardCharsets.UTF_8),
                1,
                Integer::sum);
          }
        }
      }
    }
    f.deadLetters(ledger, poison, poisonRecords, other);
  }

  /** Milliseconds until the group's committed offsets reach the topic's end, or -1. */
  long awaitCaughtUp(String group, String topic) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    long t0 = System.currentTimeMillis();
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .forEach(i -> latest.put(new TopicPartition(topic, i.partition()), OffsetSpec.latest()));
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      while (System.currentTimeMillis() - t0 < deadline.toMillis()) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        boolean caughtUp =
            ends.entrySet().stream()
                .allMatch(
                    e -> {
                      OffsetAndMetadata c = committed.get(e.getKey());
                      return e.getValue() == 0 || (c != null && c.offset() >= e.getValue());
                    });
        if (caughtUp) {
          return System.currentTimeMillis() - t0;
        }
        TimeUnit.MILLISECONDS.sleep(500); // polling the group's offsets with a deadline
      }
    }
    return -1;
  }

  private JsonObject json(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "GET " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return new JsonObject(r.body());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return system.get(slot, path, Duration.ofSeconds(30));
  }
}
