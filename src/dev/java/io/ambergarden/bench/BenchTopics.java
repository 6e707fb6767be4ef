package io.ambergarden.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The bench's Kafka side: fresh topics, producing the events, and timing a consumer group by its
 * commits.
 */
final class BenchTopics {
  private BenchTopics() {}

  /**
   * Creates the topics and returns once every partition's leader serves it (answers ListOffsets).
   */
  static void create(String bootstrap, String... topics) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      List<NewTopic> newTopics = new ArrayList<>();
      Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
      for (String t : topics) {
        int count = t.endsWith(".dlq") ? 1 : 6;
        newTopics.add(new NewTopic(t, count, (short) 1));
        for (int i = 0; i < count; i++) {
          partitions.put(new TopicPartition(t, i), OffsetSpec.latest());
        }
      }
      admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
      // the controller names the leader before the broker has loaded the partition; an idempotent
      // producer
      // that sends in that window can have its first batch refused for good
      // (OutOfOrderSequenceException)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try {
          admin.listOffsets(partitions).all().get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException | TimeoutException e) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "topics " + List.of(topics) + " not served within 30 s", e);
          }
          TimeUnit.MILLISECONDS.sleep(100); // polls a condition with a deadline
        }
      }
    }
  }

  /**
   * Sends every event and fails if any send failed, so a phase never runs on a topic with missing
   * events.
   */
  static double produce(String bootstrap, String topic, List<BenchEvents.Spec> events) {
    return produceAtRate(bootstrap, topic, events, Double.POSITIVE_INFINITY);
  }

  /**
   * As {@link #produce}, paced to {@code perSecond} events per second (event i is sent at t0 + i /
   * rate, so a late send is followed by a catch-up, not a lower rate).
   */
  static double produceAtRate(
      String bootstrap, String topic, List<BenchEvents.Spec> events, double perSecond) {
    return produceAtRate(bootstrap, topic, events, perSecond, new AtomicLong());
  }

  /** As above, counting the records the broker acknowledged in {@code acked} as they are. */
  static double produceAtRate(
      String bootstrap,
      String topic,
      List<BenchEvents.Spec> events,
      double perSecond,
      AtomicLong acked) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("linger.ms", "5");
    p.put("batch.size", "131072");
    p.put("compression.type", "lz4");
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    double nanosPerEvent = 1e9 / perSecond;
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < events.size(); i++) {
        long early = t0 + (long) (i * nanosPerEvent) - System.nanoTime();
        if (early > 1_000_000L) {
          LockSupport.parkNanos(early); // pacing of the load generator, not a wait for a condition
        }
        BenchEvents.Spec e = events.get(i);
        producer.send(
            new ProducerRecord<>(topic, e.deviceId().getBytes(StandardCharsets.UTF_8), e.json()),
            (metadata, err) -> {
              if (err != null) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, err);
              } else {
                acked.incrementAndGet();
              }
            });
      }
      producer.flush();
    }
    if (failed.get() > 0) {
      throw new IllegalStateException(
          failed.get() + " of " + events.size() + " sends to " + topic + " failed",
          firstFailure.get());
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * The measured stretch of a consumer group's progress: records committed in it over its length.
   */
  record Window(long records, double seconds) {
    double perSecond() {
      return records / seconds;
    }
  }

  /**
   * Waits until {@code total} records are committed; returns records/s from the first sample at or
   * past 10% to 100%, counted from the committed offsets at both ends (excludes the group join and
   * the first poll).
   */
  static double awaitCommitted(
      String bootstrap, String group, String topic, long total, AtomicLong committedOut)
      throws Exception {
    return awaitCommitted(bootstrap, group, topic, 0, total, committedOut, () -> true, () -> {})
        .perSecond();
  }

  /**
   * As above, for {@code total} records after the first {@code base} of the topic; the window opens
   * at the first sample past 10% at which {@code ready} holds (e.g. the producer has finished),
   * calling {@code opened}.
   */
  static Window awaitCommitted(
      String bootstrap,
      String group,
      String topic,
      long base,
      long total,
      AtomicLong committedOut,
      BooleanSupplier ready,
      Runnable opened)
      throws Exception {
    return awaitCommitted(bootstrap, group, topic, base, total, committedOut, ready, opened, true);
  }

  /** Waits until {@code total} records after the first {@code base} are committed; no window. */
  static void awaitAllCommitted(
      String bootstrap, String group, String topic, long base, long total, AtomicLong committedOut)
      throws Exception {
    awaitCommitted(bootstrap, group, topic, base, total, committedOut, () -> true, () -> {}, false);
  }

  private static Window awaitCommitted(
      String bootstrap,
      String group,
      String topic,
      long base,
      long total,
      AtomicLong committedOut,
      BooleanSupplier ready,
      Runnable opened,
      boolean requireWindow)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    long tenPercentAt = 0;
    long committedAtTenPercent = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    long lastPrint = 0;
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        Map<TopicPartition, OffsetAndMetadata> offsets =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        long committed =
            offsets.entrySet().stream()
                .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset())
                .sum();
        committedOut.set(committed);
        committed -= base;
        long t = System.nanoTime();
        if (tenPercentAt == 0
            && committed >= total / 10
            && committed < total
            && ready.getAsBoolean()) {
          tenPercentAt = t;
          committedAtTenPercent = committed;
          opened.run();
        }
        if (committed >= total) {
          if (tenPercentAt == 0 && !requireWindow) {
            return new Window(committed, 0);
          }
          if (tenPercentAt == 0) {
            throw new IllegalStateException(
                "all " + total + " records were committed before the window opened");
          }
          return new Window(committed - committedAtTenPercent, (t - tenPercentAt) / 1e9);
        }
        if (t - lastPrint > 2_000_000_000L) {
          System.out.printf("  kafka  %,9d / %,d committed%n", committed, total);
          lastPrint = t;
        }
        // polling the broker's committed offsets at 10 Hz is the measurement itself, not a wait for
        // a fixed time
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException(
        "service did not commit " + total + " records within 20 minutes");
  }
}
