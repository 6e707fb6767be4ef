package io.ambergarden.it;

import io.ambergarden.localrt.RealServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Plain Kafka clients for tests: produce raw bytes, read a topic, read committed offsets. */
public final class Kafkas {
  private Kafkas() {}

  public static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  public static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value) {
    try {
      producer
          .send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value))
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every record currently in the topic, read from the beginning. */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(
      String topic, int expectedAtLeast, Duration deadline) {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    p.put("group.id", "reader-" + System.nanoTime());
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long end = System.nanoTime() + deadline.toNanos();
      while (out.size() < expectedAtLeast && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      // one more short poll to see records beyond the expected count
      c.poll(Duration.ofMillis(500)).forEach(out::add);
    }
    return out;
  }

  /** Every record of the topic up to the end offsets it had when called. */
  public static List<ConsumerRecord<byte[], byte[]>> readToEnd(String topic, Duration deadline) {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    p.put("enable.auto.commit", "false");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          c.partitionsFor(topic, deadline).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, deadline);
      long until = System.nanoTime() + deadline.toNanos();
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException(topic + " not read to " + end + " in " + deadline);
        }
        c.poll(Duration.ofMillis(200))
            .forEach(
                r -> {
                  if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
                    out.add(r);
                  }
                });
      }
    }
    return out;
  }

  /** Creates a topic (the test broker does not auto-create topics). */
  public static void createTopic(String topic, int partitions) {
    createTopic(topic, partitions, Map.of());
  }

  /** Creates a topic with topic-level configs (e.g. max.message.bytes). */
  public static void createTopic(String topic, int partitions, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)
                      .configs(configs)))
          .all()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Admin admin() {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    return Admin.create(p);
  }

  /** The end offset (next offset to be written) of each partition of the topic. */
  public static Map<Integer, Long> endOffsets(String topic, int partitions) {
    try (Admin admin = admin()) {
      Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> req =
          new java.util.HashMap<>();
      for (int i = 0; i < partitions; i++) {
        req.put(new TopicPartition(topic, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
      }
      Map<Integer, Long> out = new java.util.TreeMap<>();
      admin
          .listOffsets(req)
          .all()
          .get(10, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether the group committed every partition up to {@code ends} (partitions that never held a
   * record have nothing to commit).
   */
  public static boolean caughtUp(String group, String topic, Map<Integer, Long> ends) {
    Map<Integer, Long> committed = committed(group, topic);
    return ends.entrySet().stream()
        .allMatch(e -> e.getValue() == 0 || e.getValue().equals(committed.get(e.getKey())));
  }

  /** The member ids of a consumer group, sorted. */
  public static List<String> members(String group) {
    try (Admin admin = admin()) {
      return admin
          .describeConsumerGroups(List.of(group))
          .describedGroups()
          .get(group)
          .get(10, TimeUnit.SECONDS)
          .members()
          .stream()
          .map(m -> m.consumerId())
          .sorted()
          .toList();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Removes every member from the group, as the coordinator does with expired sessions; nothing to
   * do when the coordinator already expired them all.
   */
  public static void removeAllMembers(String group) {
    if (members(group).isEmpty()) {
      return;
    }
    try (Admin admin = admin()) {
      admin
          .removeMembersFromConsumerGroup(
              group, new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions())
          .all()
          .get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      // the admin client refuses to remove nobody: the coordinator expired them meanwhile
      if (!(e.getCause() instanceof IllegalArgumentException)) {
        throw new IllegalStateException(e);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The group's committed offset of each partition of the topic. */
  public static Map<Integer, Long> committed(String group, String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    try (Admin admin = Admin.create(p)) {
      Map<Integer, Long> out = new java.util.TreeMap<>();
      admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS)
          .forEach(
              (tp, om) -> {
                if (tp.topic().equals(topic) && om != null) {
                  out.put(tp.partition(), om.offset());
                }
              });
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The end offset of each partition of the topic. */
  public static Map<Integer, Long> endOffsets(String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", RealServers.kafkaBootstrap());
    try (Admin admin = Admin.create(p)) {
      var partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(10, TimeUnit.SECONDS)
              .get(topic)
              .partitions();
      Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> ask =
          new java.util.HashMap<>();
      partitions.forEach(
          pi ->
              ask.put(
                  new TopicPartition(topic, pi.partition()),
                  org.apache.kafka.clients.admin.OffsetSpec.latest()));
      Map<Integer, Long> out = new java.util.TreeMap<>();
      admin
          .listOffsets(ask)
          .all()
          .get(10, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Sum over partitions of the group's committed offsets on the topic. */
  public static long committedTotal(String group, String topic) {
    return committed(group, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  public static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
