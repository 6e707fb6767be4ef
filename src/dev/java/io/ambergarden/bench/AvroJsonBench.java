package io.ambergarden.bench;

import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Avro-against-JSON phase (g) on its own, in one run: {@code mvn -Pbench
 * -Dbench.main=io.ambergarden.bench.AvroJsonBench}. Starts the local Cassandra and Kafka, measures
 * {@link AvroJsonPhase} (bytes per event, decode and consumer CPU per 1000 events), then the whole
 * service (its own JVM, Kafka to Cassandra) on one topic, JSON, Avro, Avro then JSON records, as
 * CPU ms per 1000 events of the service and of Cassandra. Settings: amber.bench.avro-events
 * (100000), amber.bench.devices (2000), amber.bench.avro-rounds (5), amber.bench.avro-service
 * (true). Results: .bench-results/&lt;timestamp&gt;-avro/results.md.
 */
public final class AvroJsonBench {
  private static final DateTimeFormatter DIR_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss'Z'").withZone(ZoneOffset.UTC);

  private AvroJsonBench() {}

  public static void main(String[] args) throws Exception {
    int events = BenchSettings.setting("avro-events", 100_000);
    int devices = BenchSettings.setting("devices", 2_000);
    int rounds = BenchSettings.setting("avro-rounds", 5);
    boolean withService = Boolean.parseBoolean(BenchSettings.text("avro-service", "true"));
    Instant started = Instant.now();
    LocalRuntimeOptions options = LocalRuntimeOptions.forBenchmarks();
    List<String> report = new ArrayList<>();
    report.add("# Avro against JSON on amber.events");
    report.add("");
    report.add(
        String.format(
            "%s, %d cores, Java %s; %,d events over %,d devices (three metrics, a type, status and"
                + " code each), %d measured rounds per format after a warm-up, medians.",
            DIR_NAME.format(started),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            events,
            devices,
            rounds));
    report.add("");
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      long now = System.currentTimeMillis();
      List<BenchEvents.Spec> specs = BenchEvents.generate("avj", events, devices, now, 7);
      List<AvroJsonPhase.Figures> f =
          AvroJsonPhase.measure(runtime.kafkaBootstrap(), specs, rounds);
      report.add("```");
      report.addAll(AvroJsonPhase.lines(f, events));
      report.add("```");
      if (withService) {
        report.add("");
        report.addAll(service(runtime, devices, events, now));
      }
    }
    report.forEach(System.out::println);
    Path dir =
        options.projectDir().resolve(".bench-results").resolve(DIR_NAME.format(started) + "-avro");
    Files.createDirectories(dir);
    Files.write(dir.resolve("results.md"), report, StandardCharsets.UTF_8);
    System.out.println("\nResults: " + dir);
  }

  /**
   * The service consuming one topic: a warm-up of both formats, then the measured JSON events, then
   * the measured Avro events (new event ids, same devices), each timed to its last committed
   * offset.
   */
  static List<String> service(LocalRuntime runtime, int devices, int events, long now)
      throws Exception {
    String topic = "avro-svc-" + UUID.randomUUID().toString().substring(0, 8);
    BenchTopics.create(runtime.kafkaBootstrap(), topic, topic + ".dlq");
    String group = topic + "-group";
    Map<String, String> config = new HashMap<>();
    config.put("cassandra.contact-points", runtime.cassandraContactPoint());
    config.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    config.put("cassandra.keyspace", "amber_bench_avro");
    config.put("kafka.topic", topic);
    config.put("kafka.dlq-topic", topic + ".dlq");
    config.put("kafka.group-id", group);
    config.put("kafka.consumer.commit-interval", "200ms");
    config.put("kafka.create-topics", "false");
    int port = BenchSettings.setting("http-port", 18_080);
    config.put("http.port", Integer.toString(port));
    int warm = Math.max(1000, events / 4);
    List<BenchEvents.Spec> warmJson = BenchEvents.generate("avj", "wj", warm, devices, now, 8);
    List<BenchEvents.Spec> warmAvro = BenchEvents.generate("avj", "wa", warm, devices, now, 9);
    CpuLedger ledger = new CpuLedger();
    List<String> out = new ArrayList<>();
    try (BenchService app =
        BenchService.start(
            config,
            port,
            IngestBench.SERVICE_JVM,
            runtime.options().projectDir().resolve("target").resolve("bench-avro-service.log"))) {
      ledger
          .process("service", () -> Optional.of(app.handle()))
          .process("Cassandra", () -> runtime.cassandra().pid().flatMap(ProcessHandle::of));
      System.out.printf("(g) the service: warm-up on %,d JSON and %,d Avro events%n", warm, warm);
      long offset = 0;
      offset = consumed(runtime, topic, group, offset, AvroJsonPhase.json(warmJson));
      offset = consumed(runtime, topic, group, offset, AvroJsonPhase.avro(warmAvro));
      out.add(
          String.format(
              "The service (own JVM %s, Kafka -> Cassandra, one topic, one run): CPU ms per 1000"
                  + " events, in the order run (JSON, Avro, Avro, JSON, so that a drift of the"
                  + " machine over the run weighs on both formats alike)",
              IngestBench.SERVICE_JVM));
      out.add("");
      out.add("| round | records | service | Cassandra | wall s |");
      out.add("|---:|---|---:|---:|---:|");
      Map<String, double[]> sums = new HashMap<>();
      List<String> order =
          List.of(AvroJsonPhase.JSON, AvroJsonPhase.AVRO, AvroJsonPhase.AVRO, AvroJsonPhase.JSON);
      for (int round = 0; round < order.size(); round++) {
        String format = order.get(round);
        ledger.awaitQuiet("service", 0.3, Duration.ofSeconds(5), Duration.ofSeconds(120));
        ledger.awaitQuiet("Cassandra", 0.3, Duration.ofSeconds(5), Duration.ofSeconds(120));
        List<BenchEvents.Spec> specs =
            BenchEvents.generate("avj", "r" + round + "-", events, devices, now, 20 + round);
        List<byte[]> values =
            format.equals(AvroJsonPhase.JSON)
                ? AvroJsonPhase.json(specs)
                : AvroJsonPhase.avro(specs);
        System.out.printf("(g) the service: %,d %s events%n", events, format);
        CpuLedger.Span span = ledger.start(format);
        offset = consumed(runtime, topic, group, offset, values);
        CpuLedger.Phase p = span.end(events);
        double[] sum = sums.computeIfAbsent(format, f -> new double[2]);
        sum[0] += p.millisPer1000Events("service") / 2;
        sum[1] += p.millisPer1000Events("Cassandra") / 2;
        out.add(
            String.format(
                "| %d | %s | %.1f | %.1f | %.1f |",
                round + 1,
                format,
                p.millisPer1000Events("service"),
                p.millisPer1000Events("Cassandra"),
                p.wallSeconds()));
      }
      for (String format : List.of(AvroJsonPhase.JSON, AvroJsonPhase.AVRO)) {
        out.add(
            String.format(
                "| mean | %s | %.1f | %.1f | |", format, sums.get(format)[0], sums.get(format)[1]));
      }
    }
    return out;
  }

  /**
   * Produces the values after {@code offset} records and waits until the service committed them.
   */
  private static long consumed(
      LocalRuntime runtime, String topic, String group, long offset, List<byte[]> values)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", runtime.kafkaBootstrap());
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("linger.ms", "5");
    p.put("compression.type", "lz4");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] v : values) {
        // no key: these records are spread over the partitions; order per device does not matter
        // here
        producer.send(new ProducerRecord<>(topic, null, v));
      }
      producer.flush();
    }
    long target = offset + values.size();
    Properties a = new Properties();
    a.put("bootstrap.servers", runtime.kafkaBootstrap());
    long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
    try (Admin admin = Admin.create(a)) {
      while (System.nanoTime() < deadline) {
        long committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get()
                .values()
                .stream()
                .filter(o -> o != null)
                .mapToLong(o -> o.offset())
                .sum();
        if (committed >= target) {
          return target;
        }
        // polling the committed offsets is how the end of the phase is seen
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("the service did not commit " + target + " records in time");
  }
}
