package io.ambergarden.bench;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.event.EventParser;
import io.ambergarden.ingest.RecordDecoder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * (g) Avro against JSON on the input topic, on the same events: bytes per event (the record value,
 * and what the producer sent after lz4 batching), and consumer CPU per 1000 events, both for the
 * parse step alone ({@link RecordDecoder}, what the ingest consumer runs per record) and for a real
 * KafkaConsumer fetching, decompressing and decoding the topic (thread CPU of the polling thread).
 * Rounds alternate JSON and Avro after a warm-up; the median round is reported.
 */
final class AvroJsonPhase {
  static final String JSON = "JSON";
  static final String AVRO = "Avro";

  /** One format's figures. */
  record Figures(
      String format, double valueBytes, double wireBytes, double decodeMs, double consumeMs) {}

  private AvroJsonPhase() {}

  static byte[] avro(BinaryMessageEncoder<GenericRecord> encoder, BenchEvents.Spec e) {
    GenericRecord r = new GenericData.Record(AvroEvents.latest());
    r.put("deviceId", e.deviceId());
    r.put("ts", e.ts());
    r.put("eventId", e.eventId());
    r.put("deviceType", e.deviceType());
    r.put("status", e.status());
    r.put("code", e.code());
    r.put("metrics", e.metrics());
    r.put("tags", Map.of());
    try {
      ByteBuffer b = encoder.encode(r);
      return Arrays.copyOfRange(
          b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
    } catch (java.io.IOException ex) {
      throw new IllegalStateException(ex);
    }
  }

  static List<byte[]> avro(List<BenchEvents.Spec> events) {
    BinaryMessageEncoder<GenericRecord> encoder = AvroEvents.encoder(AvroEvents.latest());
    return events.stream().map(e -> avro(encoder, e)).toList();
  }

  static List<byte[]> json(List<BenchEvents.Spec> events) {
    return events.stream().map(BenchEvents.Spec::json).toList();
  }

  static List<Figures> measure(String bootstrap, List<BenchEvents.Spec> events, int rounds)
      throws Exception {
    List<byte[]> json = json(events);
    List<byte[]> avro = avro(events);
    RecordDecoder decoder = new RecordDecoder(new EventParser());
    System.out.printf("(g) Avro against JSON: %,d events, decode only%n", events.size());
    double[] decode =
        alternate(rounds, () -> decodeMs(decoder, json), () -> decodeMs(decoder, avro));

    String run = UUID.randomUUID().toString().substring(0, 8);
    String jsonTopic = "avro-vs-json-" + run + "-json";
    String avroTopic = "avro-vs-json-" + run + "-avro";
    BenchTopics.create(bootstrap, jsonTopic, avroTopic);
    double jsonWire = produce(bootstrap, jsonTopic, events, json);
    double avroWire = produce(bootstrap, avroTopic, events, avro);
    System.out.printf("(g) Avro against JSON: consuming both topics, %d rounds each%n", rounds);
    double[] consume =
        alternate(
            rounds,
            () -> consumeMs(bootstrap, jsonTopic, decoder, events.size()),
            () -> consumeMs(bootstrap, avroTopic, decoder, events.size()));
    return List.of(
        new Figures(JSON, mean(json), jsonWire, decode[0], consume[0]),
        new Figures(AVRO, mean(avro), avroWire, decode[1], consume[1]));
  }

  /** The report's lines: one per format, then the ratios. */
  static List<String> lines(List<Figures> f, int events) {
    List<String> out = new ArrayList<>();
    out.add(
        String.format(
            "(g) Avro against JSON, %,d events: value bytes per event, bytes sent per event"
                + " (lz4 batches), CPU ms per 1000 events to decode, CPU ms per 1000 events for a"
                + " KafkaConsumer to fetch, decompress and decode:",
            events));
    for (Figures x : f) {
      out.add(
          String.format(
              "  %-4s %6.1f B  %6.1f B  decode %6.2f ms  consume %6.2f ms",
              x.format(), x.valueBytes(), x.wireBytes(), x.decodeMs(), x.consumeMs()));
    }
    Figures j = f.get(0);
    Figures a = f.get(1);
    out.add(
        String.format(
            "  Avro/JSON: value bytes %.2f, sent bytes %.2f, decode CPU %.2f, consume CPU %.2f",
            a.valueBytes() / j.valueBytes(),
            a.wireBytes() / j.wireBytes(),
            a.decodeMs() / j.decodeMs(),
            a.consumeMs() / j.consumeMs()));
    return out;
  }

  interface Measurement {
    double run() throws Exception;
  }

  /** A warm-up of each, then {@code rounds} alternating rounds; the medians. */
  static double[] alternate(int rounds, Measurement first, Measurement second) throws Exception {
    first.run();
    second.run();
    double[] a = new double[rounds];
    double[] b = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      a[i] = first.run();
      b[i] = second.run();
    }
    return new double[] {median(a), median(b)};
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  static double mean(List<byte[]> values) {
    return values.stream().mapToInt(v -> v.length).average().orElse(0);
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static double decodeMs(RecordDecoder decoder, List<byte[]> values) {
    long t0 = THREADS.getCurrentThreadCpuTime();
    int bad = 0;
    for (byte[] v : values) {
      if (!decoder.decode(v).ok()) {
        bad++;
      }
    }
    if (bad > 0) {
      throw new IllegalStateException(bad + " records did not decode");
    }
    return (THREADS.getCurrentThreadCpuTime() - t0) / 1e6 * 1000 / values.size();
  }

  /** Produces the values with the service's producer settings; returns bytes sent per event. */
  static double produce(
      String bootstrap, String topic, List<BenchEvents.Spec> events, List<byte[]> values) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("linger.ms", "5");
    p.put("batch.size", "131072");
    p.put("compression.type", "lz4");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < values.size(); i++) {
        producer.send(
            new ProducerRecord<>(
                topic, events.get(i).deviceId().getBytes(StandardCharsets.UTF_8), values.get(i)));
      }
      producer.flush();
      for (Map.Entry<MetricName, ? extends Metric> m : producer.metrics().entrySet()) {
        if (m.getKey().group().equals("producer-topic-metrics")
            && m.getKey().name().equals("byte-total")
            && topic.equals(m.getKey().tags().get("topic"))) {
          return ((Number) m.getValue().metricValue()).doubleValue() / values.size();
        }
      }
    }
    throw new IllegalStateException("no byte-total metric for " + topic);
  }

  /** Reads the whole topic with a fresh group, decoding each record; CPU ms per 1000 records. */
  static double consumeMs(String bootstrap, String topic, RecordDecoder decoder, int total) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", "avro-vs-json-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    p.put("max.poll.records", "500");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long t0 = THREADS.getCurrentThreadCpuTime();
      int seen = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (seen < total && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (!decoder.decode(r.value()).ok()) {
            throw new IllegalStateException("a record of " + topic + " did not decode");
          }
          seen++;
        }
      }
      if (seen < total) {
        throw new IllegalStateException("read " + seen + " of " + total + " records of " + topic);
      }
      return (THREADS.getCurrentThreadCpuTime() - t0) / 1e6 * 1000 / total;
    }
  }
}
