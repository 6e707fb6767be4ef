package io.ambergarden.chaos;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.chaos.check.State;
import io.ambergarden.chaos.check.StateChecker;
import io.ambergarden.chaos.check.StateReader;
import io.ambergarden.chaos.check.WritePath;
import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.history.HistoryChecker;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 * Checks the run once the faults are healed and the workload stopped, taking nothing on faith: the
 * ledger's bound, the history's read anomalies, then (once the consumer group caught up, the count
 * journal passed every write and the closed hours were reconciled, or the deadline) every compared
 * table read through CQL at ALL and the same data through the public API of one instance, judged by
 * {@link StateChecker}; and the dead-letter topic. A checker that fails says so in the report:
 * every exception becomes a failed "checker completed" invariant.
 */
final class ChaosChecker {
  /** rollup.grace + late-window + mark-bucket + mark-safety + scan-interval, rounded up. */
  static final Duration RECONCILE_MARGIN = Duration.ofMinutes(4);

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

  /**
   * Every verdict into {@code f}; never throws (but for an interrupt, recorded first). {@code
   * history} is closed here; {@code writes} gives the instances' write figures and the faults that
   * bound their duplicates, asked for once the counters and the state were read: the instances keep
   * writing (a backlog, the journal's counters) after the workload stops, and figures scraped then
   * missed every counter timeout that came later.
   */
  void check(
      ChaosFindings f,
      String keyspace,
      String topic,
      String dlqTopic,
      String group,
      History history,
      Supplier<WritePath> writes)
      throws InterruptedException {
    try {
      f.ledger(ledger);
      history.close();
      f.history(HistoryChecker.check(history.file()), history.dropped());
      f.figure(
          "history (compressed NDJSON, one operation a line)",
          history.file().getFileName().toString());
      f.lag(awaitCaughtUp(group, topic));
      f.hintsDelivered(awaitHintsDelivered());
      long settledAt = System.currentTimeMillis();
      // counters are applied from the count journal after the write: wait until it passed them all
      f.figure(
          "count journal applied past the workload's end after, ms (-1: not in time)",
          awaitCounted(settledAt));
      long reconciledBefore = settledAt - RECONCILE_MARGIN.toMillis();
      long t0 = System.currentTimeMillis();
      awaitReconciled(reconciledBefore);
      f.figure(
          "closed hours reconciled after the workload stopped, ms",
          System.currentTimeMillis() - t0);
      long from = ledger.baseTs();
      long to = ledger.events().stream().mapToLong(ChaosEvent::ts).max().orElse(from) + 1;
      Set<String> types = new TreeSet<>(ChaosEvent.TYPES);
      ledger.events().forEach(e -> types.add(e.deviceType()));
      Set<String> statuses = new TreeSet<>();
      ledger.events().forEach(e -> statuses.add(e.status()));
      State state;
      try (CqlSession session =
          system.runtime().cluster().node(1).openSession(Duration.ofSeconds(30))) {
        state =
            new StateReader(session, keyspace, this::http, deadline)
                .read(
                    ledger.byDevice().keySet(),
                    types,
                    statuses,
                    from,
                    to,
                    settledAt,
                    reconciledBefore);
      }
      StateChecker.check(f, ledger, state, writes.get(), StateChecker.AbnormalRule.DEFAULT);
      readDeadLetters(f, dlqTopic);
    } catch (InterruptedException e) {
      f.crashed(e);
      throw e;
    } catch (Throwable t) {
      f.crashed(t);
    }
  }

  /**
   * The faults after which consumers may write records again, each with the configured bound
   * (max-in-flight + max-poll-records) per consumer it can disturb: a killed or paused instance's
   * partitions move with their uncommitted records; a node, broker, network or clock fault can make
   * every consumer retry the writes it has in flight. A SIGTERM drains and commits first, and
   * client faults touch no consumer, so they add none.
   */
  static List<WritePath.Disruption> disruptions(
      List<Nemesis.Outcome> outcomes, int instances, int maxInFlight, int maxPollRecords) {
    long one = WritePath.perRebalance(maxInFlight, maxPollRecords);
    List<WritePath.Disruption> out = new java.util.ArrayList<>();
    for (Nemesis.Outcome o : outcomes) {
      for (NemesisPlan.Fault f : o.step().faults()) {
        out.add(
            new WritePath.Disruption(
                "#" + o.step().index() + " " + f,
                o.injectedAt(),
                switch (f.kind()) {
                  case KILL_INSTANCE, PAUSE_INSTANCE -> one;
                  case TERM_INSTANCE, CLIENT_FAULTS -> 0L;
                  default -> one * instances;
                }));
      }
    }
    return out;
  }

  private StateReader.Response http(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    return new StateReader.Response(r.statusCode(), r.body());
  }

  private long awaitCounted(long ackedBefore) throws IOException, InterruptedException {
    long t0 = System.currentTimeMillis();
    long end = t0 + deadline.toMillis();
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    while (System.currentTimeMillis() < end) {
      Long counted = json("/api/v1/stats/status?day=" + today).getLong("countedThrough");
      if (counted != null && counted >= ackedBefore) {
        return System.currentTimeMillis() - t0;
      }
      TimeUnit.MILLISECONDS.sleep(500); // polling the journal's progress with a deadline
    }
    return -1;
  }

  /**
   * Waits until every device's exactThrough passed each of its stored hours that ended before
   * {@code before}, or the deadline; the checker judges what it finds either way.
   */
  private void awaitReconciled(long before) throws IOException, InterruptedException {
    long end = System.currentTimeMillis() + deadline.toMillis();
    Map<String, Long> lastClosedHourEnd = new TreeMap<>();
    for (ChaosEvent e : ledger.events()) {
      long hourEnd =
          Math.floorDiv(e.ts(), ChaosFindings.HOUR) * ChaosFindings.HOUR + ChaosFindings.HOUR;
      if (ledger.sends(e.eventId()) > 0 && hourEnd <= before) {
        lastClosedHourEnd.merge(e.deviceId(), hourEnd, Math::max);
      }
    }
    while (!lastClosedHourEnd.isEmpty() && System.currentTimeMillis() < end) {
      for (var it = lastClosedHourEnd.entrySet().iterator(); it.hasNext(); ) {
        var d = it.next();
        Long exact = json("/api/v1/devices/" + d.getKey() + "/counters").getLong("exactThrough");
        if (exact != null && exact >= d.getValue()) {
          it.remove();
        }
      }
      if (!lastClosedHourEnd.isEmpty()) {
        TimeUnit.SECONDS.sleep(2); // recomputes follow the marks; polled with a deadline
      }
    }
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
  /**
   * Waits until no node holds hints for another (nodetool listpendinghints), so the replicas the
   * faults left behind have caught up before anything is read; the millis it took, -1 past the
   * deadline.
   */
  long awaitHintsDelivered() throws InterruptedException {
    long t0 = System.currentTimeMillis();
    long end = t0 + deadline.toMillis();
    while (System.currentTimeMillis() < end) {
      boolean none =
          system.runtime().cluster().nodes().stream()
              .allMatch(
                  n -> {
                    try {
                      return n.nodetool("listpendinghints").contains(NO_PENDING_HINTS);
                    } catch (RuntimeException e) {
                      return false;
                    }
                  });
      if (none) {
        return System.currentTimeMillis() - t0;
      }
      TimeUnit.SECONDS.sleep(2); // hints go out every 10 s; polling until the deadline
    }
    return -1;
  }

  static final String NO_PENDING_HINTS = "does not have any pending hints";

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
