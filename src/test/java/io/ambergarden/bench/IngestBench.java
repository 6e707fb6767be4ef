package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.AmberGarden;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.cassandra.SchemaScript;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.localrt.LocalRuntime;
import io.ambergarden.localrt.LocalRuntimeOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Ingest benchmark ({@code mvn -Pbench}): in one run and on the same events, the raw driver ceiling and
 * the service's Kafka -> Cassandra and HTTP ingest throughput. Settings: -Damber.bench.events (200000),
 * .devices (2000), .warmup (300000), .concurrency (256), .http-events (50000).
 */
public final class IngestBench {
  private static final String KEYSPACE = "amber_bench";

  private IngestBench() {
  }

  static int setting(String name, int def) {
    String env = System.getenv("AMBER_BENCH_" + name.toUpperCase().replace('-', '_'));
    return Integer.parseInt(System.getProperty("amber.bench." + name, env == null ? Integer.toString(def) : env));
  }

  public static void main(String[] args) throws Exception {
    int events = setting("events", 200_000);
    int devices = setting("devices", 2_000);
    int warmup = setting("warmup", 300_000);
    int concurrency = setting("concurrency", 256);
    int httpEvents = setting("http-events", 50_000);
    RawWriteLoop.Progress progress = (phase, done, total, t0) -> System.out.printf("  %-6s %,9d / %,d  %,8.0f events/s%n",
        phase, done, total, done / ((System.nanoTime() - t0) / 1e9));

    LocalRuntimeOptions options = LocalRuntimeOptions.fromEnvironment();
    try (LocalRuntime runtime = new LocalRuntime(options)) {
      runtime.start();
      Map<String, String> cfg = new HashMap<>();
      cfg.put("cassandra.contact-points", runtime.cassandraContactPoint());
      cfg.put("kafka.bootstrap-servers", runtime.kafkaBootstrap());
      cfg.put("cassandra.keyspace", KEYSPACE);
      AmberConfig base = ConfigLoader.load(Map.of(), new Properties(), cfg);

      long now = System.currentTimeMillis();
      List<BenchEvents.Spec> warm = BenchEvents.generate("warm", warmup, devices, now, 1);
      List<BenchEvents.Spec> measured = BenchEvents.generate("dev-" + UUID.randomUUID().toString().substring(0, 6),
          events, devices, now, 2);
      long rowsPerRun = RawWriteLoop.rowsOf(measured);

      RawWriteLoop.Result raw;
      try (CqlSession session = runtime.cassandra().openSession(Duration.ofSeconds(30))) {
        for (SchemaScript s : SchemaMigrator.scripts(SchemaMigrator.placeholders(base))) {
          s.statements().forEach(session::execute);
        }
        RawWriteLoop loop = new RawWriteLoop(session, KEYSPACE, base.cassandra().typeSalts(),
            base.cassandra().abnormalSalts());
        System.out.printf("Warm-up: %,d events through the raw loop%n", warmup);
        loop.run(warm, concurrency, progress);
        System.out.printf("(a) Raw ceiling: %,d events, %,d rows, %d in flight%n", events, rowsPerRun, concurrency);
        raw = loop.run(measured, concurrency, progress);
      }

      String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
      System.out.printf("Producing %,d events to %s%n", events, topic);
      double produceSeconds = produce(runtime.kafkaBootstrap(), topic, measured);

      Map<String, String> svc = new HashMap<>(cfg);
      svc.put("kafka.topic", topic);
      svc.put("kafka.dlq-topic", topic + ".dlq");
      svc.put("kafka.group-id", topic + "-group");
      svc.put("kafka.consumer.commit-interval", "200ms");
      svc.put("http.port", "0".equals(System.getProperty("amber.bench.http-port")) ? "0" : "18080");
      AmberConfig config = ConfigLoader.load(System.getenv(), System.getProperties(), svc);
      System.out.printf("(b) Service Kafka -> Cassandra: %,d events%n", events);
      AmberGarden app = AmberGarden.start(config).toCompletionStage().toCompletableFuture().get(5, TimeUnit.MINUTES);
      double kafkaSeconds;
      double httpSeconds;
      try {
        kafkaSeconds = awaitCommitted(runtime.kafkaBootstrap(), topic + "-group", topic, events);
        System.out.printf("(b) Service HTTP ingest (kafka mode, 202 after broker ack): %,d events%n", httpEvents);
        httpSeconds = http(config.http().port(), BenchEvents.generate("http", httpEvents, devices, now, 3));
      } finally {
        app.stop().toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
      }

      double serviceEps = events * 0.9 / kafkaSeconds;
      double serviceRows = serviceEps * rowsPerRun / events;
      StringBuilder out = new StringBuilder();
      out.append(String.format("%nAmber Garden ingest benchmark, %s, %d cores, Java %s%n", Instant.now(),
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")));
      out.append(String.format("events %,d, devices %,d, rows per event %.2f, warm-up %,d events%n%n", events, devices,
          (double) rowsPerRun / events, warmup));
      out.append(String.format("| measurement | events/s | rows/s |%n|---|---|---|%n"));
      out.append(String.format("| (a) raw driver loop, %d in flight | %,.0f | %,.0f |%n", concurrency,
          raw.eventsPerSecond(), raw.rowsPerSecond()));
      out.append(String.format("| (b) service Kafka -> Cassandra | %,.0f | %,.0f |%n", serviceEps, serviceRows));
      out.append(String.format("| (b) service HTTP ingest (to Kafka) | %,.0f | - |%n", httpEvents / httpSeconds));
      out.append(String.format("| producer, for reference | %,.0f | - |%n%n", events / produceSeconds));
      out.append(String.format("service / raw ceiling (rows/s): %.2f%n", serviceRows / raw.rowsPerSecond()));
      System.out.print(out);
      Path dir = Path.of("target", "bench");
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("ingest-" + System.currentTimeMillis() + ".md"), out.toString());
    }
  }

  static double produce(String bootstrap, String topic, List<BenchEvents.Spec> events) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1), new NewTopic(topic + ".dlq", 1, (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
    }
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("linger.ms", "5");
    p.put("batch.size", "131072");
    p.put("compression.type", "lz4");
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (BenchEvents.Spec e : events) {
        producer.send(new ProducerRecord<>(topic, e.deviceId().getBytes(StandardCharsets.UTF_8), e.json()));
      }
      producer.flush();
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Seconds from 10% to 100% committed: excludes group join and the first poll. */
  static double awaitCommitted(String bootstrap, String group, String topic, long total) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    long tenPercentAt = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    long lastPrint = 0;
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        long committed = offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
            .mapToLong(e -> e.getValue().offset()).sum();
        long t = System.nanoTime();
        if (tenPercentAt == 0 && committed >= total / 10) {
          tenPercentAt = t;
        }
        if (committed >= total) {
          return (t - tenPercentAt) / 1e9;
        }
        if (t - lastPrint > 2_000_000_000L) {
          System.out.printf("  kafka  %,9d / %,d committed%n", committed, total);
          lastPrint = t;
        }
        // polling the broker's committed offsets at 10 Hz is the measurement itself, not a wait for a fixed time
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("service did not commit " + total + " records within 20 minutes");
  }

  static double http(int port, List<BenchEvents.Spec> events) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/events");
    int batch = 500;
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < events.size(); i += batch) {
      StringBuilder sb = new StringBuilder();
      for (BenchEvents.Spec e : events.subList(i, Math.min(events.size(), i + batch))) {
        sb.append(new String(e.json(), StandardCharsets.UTF_8)).append('\n');
      }
      bodies.add(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    long t0 = System.nanoTime();
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (byte[] body : bodies) {
        results.add(pool.submit(() -> {
          for (int attempt = 0; ; attempt++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 202 || attempt > 20) {
              return r.statusCode();
            }
          }
        }));
      }
      for (Future<Integer> f : results) {
        if (f.get() != 202) {
          throw new IOException("HTTP ingest answered " + f.get());
        }
      }
    } finally {
      pool.shutdown();
    }
    return (System.nanoTime() - t0) / 1e9;
  }
}
