package io.ambergarden.chaos;

import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.history.Op;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * HTTP batches (posted round-robin over the instance slots, each refused batch tried again with the
 * same identities on the next slot, as a client behind a load balancer would) and Kafka records, at
 * fixed rates. Every {@code duplicate-every}th batch and record is an earlier one sent again on
 * purpose; every {@code poison-every}th record is poison (not an event), marked by a header.
 *
 * <p>Every operation goes into the {@link History}: each poster and reader is one process (one
 * operation at a time), the producer another. After a 202 from a {@code direct}-mode slot the
 * poster reads the latest state of a device it wrote (read-your-writes); readers read random
 * devices' latest states all along (a reader's view must never go backwards).
 */
final class ChaosWorkload implements AutoCloseable {
  static final String POISON_HEADER = "chaos.poison";
  private static final int HTTP_POSTERS = 4;
  private static final int HTTP_TRIES = 3;
  private static final int READERS = 2;
  private static final long READ_PERIOD_MS = 200;

  /**
   * History process ids of the producer's sends start here (posters are 0.., readers follow them):
   * sends overlap, and a process has one operation at a time, so each send is its own process.
   */
  static final int KAFKA_PROCESS = 1000;

  private final ChaosSettings settings;
  private final ChaosSystem system;
  private final AckLedger ledger;
  private final String topic;
  private final History history;
  private final IntPredicate directSlot;
  private final ScheduledExecutorService posters =
      Executors.newScheduledThreadPool(HTTP_POSTERS + READERS + 1);
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicInteger nextSlot = new AtomicInteger();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private final Map<String, AtomicInteger> refusals = new ConcurrentHashMap<>();
  private final List<Post> posts = java.util.Collections.synchronizedList(new ArrayList<>());

  /**
   * One HTTP try: when it was sent (epoch millis), how long it took, its outcome, and whether a
   * direct-mode instance answered.
   */
  record Post(long at, long millis, String outcome, boolean direct) {}

  /**
   * HTTP tries of a window: how many, how many 5xx, the latency of the 202s, and the 202s of
   * direct-mode instances (none while storage has no quorum).
   */
  record PostStats(
      int tries, int serverErrors, double p50Millis, double p99Millis, int directAcks) {}

  /** Posts remembered for the per-fault figures; past it they are no longer recorded. */
  private static final int MAX_POSTS = 1_000_000;

  /** {@code directSlot}: whether the instance in a slot runs in {@code direct} ingest mode. */
  ChaosWorkload(
      ChaosSettings settings,
      ChaosSystem system,
      AckLedger ledger,
      String topic,
      History history,
      IntPredicate directSlot) {
    this.settings = settings;
    this.history = history;
    this.directSlot = directSlot;
    this.system = system;
    this.ledger = ledger;
    this.topic = topic;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, system.runtime().kafkaBootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // a send blocks while the broker is down; bounded so the schedule keeps its pace
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
    this.producer = new KafkaProducer<>(p);
  }

  void start() {
    long httpPeriodMicros = 1_000_000L * HTTP_POSTERS / settings.httpBatchesPerSecond();
    for (int i = 0; i < HTTP_POSTERS; i++) {
      int process = i;
      posters.scheduleAtFixedRate(
          () -> postOneBatch(process),
          i * httpPeriodMicros / HTTP_POSTERS,
          httpPeriodMicros,
          TimeUnit.MICROSECONDS);
    }
    for (int i = 0; i < READERS; i++) {
      int process = HTTP_POSTERS + i;
      Random random = new Random(settings.seed() + process);
      posters.scheduleAtFixedRate(
          () -> {
            List<String> devices = ledger.devices();
            readLatest(process, devices.get(random.nextInt(devices.size())), nextSlot());
          },
          i * READ_PERIOD_MS / READERS,
          READ_PERIOD_MS,
          TimeUnit.MILLISECONDS);
    }
    posters.scheduleAtFixedRate(
        this::produceOneRecord,
        0,
        1_000_000L / settings.kafkaRecordsPerSecond(),
        TimeUnit.MICROSECONDS);
  }

  private int nextSlot() {
    return Math.floorMod(nextSlot.getAndIncrement(), system.instances());
  }

  private void postOneBatch(int process) {
    long n = batches.incrementAndGet();
    List<ChaosEvent> batch = new ArrayList<>();
    boolean again = n % settings.duplicateEvery() == 0;
    for (int i = 0; i < settings.httpBatch(); i++) {
      ChaosEvent e = again ? ledger.earlier() : ledger.next();
      if (e != null) {
        batch.add(e);
      }
    }
    if (!batch.isEmpty()) {
      post(process, batch, again);
    }
  }

  /**
   * Posts the batch, on the next slot after each refusal; true once one answered 202. After a 202
   * of a direct-mode slot, reads back the latest state of the batch's first device.
   */
  boolean post(int process, List<ChaosEvent> batch, boolean onPurposeAgain) {
    List<Op.Written> written =
        batch.stream().map(e -> new Op.Written(e.deviceId(), e.ts(), e.eventId())).toList();
    JsonArray body = new JsonArray();
    batch.forEach(e -> body.add(e.json()));
    byte[] bytes = body.encode().getBytes(StandardCharsets.UTF_8);
    for (int t = 0; t < HTTP_TRIES; t++) {
      int slot = nextSlot();
      boolean direct = directSlot.test(slot);
      ledger.sent(batch, onPurposeAgain && t == 0);
      long t0 = System.currentTimeMillis();
      Op invoked = history.invoke(process, Op.Fn.POST, slot, direct, written, null);
      String outcome = postTo(slot, bytes);
      history.complete(invoked, postType(outcome), null, outcome);
      if (posts.size() < MAX_POSTS) {
        posts.add(new Post(t0, System.currentTimeMillis() - t0, outcome, direct));
      }
      if (outcome.equals("202")) {
        ledger.acked(batch, System.currentTimeMillis());
        if (direct) {
          readLatest(process, batch.get(0).deviceId(), nextSlot());
        }
        return true;
      }
      refusals.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
    }
    return false;
  }

  /** 2xx happened; a 4xx or a refused connection did not; a 5xx or a lost answer: unknown. */
  static Op.Type postType(String outcome) {
    if (outcome.startsWith("2")) {
      return Op.Type.OK;
    }
    if (outcome.startsWith("4") || outcome.equals("refused")) {
      return Op.Type.FAIL;
    }
    return Op.Type.INFO;
  }

  /** GET of a device's latest state, recorded in the history. */
  void readLatest(int process, String deviceId, int slot) {
    Op invoked =
        history.invoke(
            process,
            Op.Fn.READ_LATEST,
            slot,
            directSlot.test(slot),
            List.of(),
            Op.Read.of(deviceId));
    try {
      HttpResponse<String> r =
          system.get(slot, "/api/v1/devices/" + deviceId + "/latest", Duration.ofSeconds(5));
      if (r.statusCode() == 200) {
        JsonObject o = new JsonObject(r.body());
        history.complete(
            invoked,
            Op.Type.OK,
            new Op.Read(deviceId, o.getString("eventId"), o.getLong("ts")),
            "200");
      } else if (r.statusCode() == 404) {
        history.complete(invoked, Op.Type.OK, Op.Read.of(deviceId), "404");
      } else {
        history.complete(invoked, Op.Type.FAIL, null, Integer.toString(r.statusCode()));
      }
    } catch (java.net.http.HttpTimeoutException e) {
      history.complete(invoked, Op.Type.INFO, null, "timeout");
    } catch (java.net.ConnectException e) {
      history.complete(invoked, Op.Type.FAIL, null, "refused");
    } catch (IOException | RuntimeException e) {
      history.complete(invoked, Op.Type.INFO, null, e.getClass().getSimpleName());
    } catch (InterruptedException e) {
      history.complete(invoked, Op.Type.INFO, null, "interrupted");
      Thread.currentThread().interrupt();
    }
  }

  /** Posts one body to one slot; the status code, or what went wrong without one. */
  String postTo(int slot, byte[] body) {
    try {
      HttpResponse<Void> r =
          system
              .http()
              .send(
                  HttpRequest.newBuilder(system.uri(slot, "/api/v1/events"))
                      .timeout(Duration.ofSeconds(15))
                      .header("Content-Type", "application/json")
                      .header(ChaosSystem.API_KEY_HEADER, system.apiKey())
                      .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
      return Integer.toString(r.statusCode());
    } catch (java.net.http.HttpTimeoutException e) {
      return "timeout";
    } catch (java.net.ConnectException e) {
      return "refused";
    } catch (IOException e) {
      return "no connection";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private void produceOneRecord() {
    long n = records.incrementAndGet();
    if (n % settings.poisonEvery() == 0) {
      producePoison(n);
      return;
    }
    boolean again = n % settings.duplicateEvery() == 0;
    ChaosEvent e = again ? ledger.earlier() : ledger.next();
    if (e == null) {
      return;
    }
    ledger.sent(List.of(e), again);
    Op invoked =
        history.invoke(
            KAFKA_PROCESS + (int) (n % 1_000_000),
            Op.Fn.KAFKA_SEND,
            -1,
            false,
            List.of(new Op.Written(e.deviceId(), e.ts(), e.eventId())),
            null);
    try {
      producer.send(
          new ProducerRecord<>(
              topic,
              e.deviceId().getBytes(StandardCharsets.UTF_8),
              e.json().encode().getBytes(StandardCharsets.UTF_8)),
          (md, err) -> {
            if (err == null) {
              ledger.acked(List.of(e), System.currentTimeMillis());
              history.complete(invoked, Op.Type.OK, null, "acked");
            } else {
              // a failed send may still have been written (a timeout): unknown outcome
              history.complete(invoked, Op.Type.INFO, null, err.getClass().getSimpleName());
            }
          });
    } catch (RuntimeException err) {
      history.complete(invoked, Op.Type.FAIL, null, err.getClass().getSimpleName());
      refusals.computeIfAbsent("kafka send", k -> new AtomicInteger()).incrementAndGet();
    }
  }

  /** Alternately bytes that are no JSON and a JSON event whose ts has the wrong type. */
  private void producePoison(long n) {
    String id = "p" + n;
    String value =
        n % 2 == 0
            ? "{not json " + id
            : "{\"deviceId\":\"" + ledger.devices().get(0) + "\",\"ts\":\"yesterday\"}";
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(
            topic,
            ledger.devices().get(0).getBytes(StandardCharsets.UTF_8),
            value.getBytes(StandardCharsets.UTF_8));
    r.headers().add(POISON_HEADER, id.getBytes(StandardCharsets.UTF_8));
    ledger.poisonSent(id);
    try {
      producer.send(
          r,
          (md, err) -> {
            if (err == null) {
              ledger.poisonAcked(id);
            }
          });
    } catch (RuntimeException err) {
      refusals.computeIfAbsent("kafka send", k -> new AtomicInteger()).incrementAndGet();
    }
  }

  /** Refused tries by outcome (status code, timeout, no connection, kafka send). */
  Map<String, Integer> refusals() {
    Map<String, Integer> out = new TreeMap<>();
    refusals.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * The workload's HTTP tries sent in [from, to); the direct-mode 202s among all tries are those
   * answered in the window (a request held through a partition and answered after the heal was
   * durable only then, as it should be).
   */
  PostStats stats(long from, long to) {
    List<Long> ok = new ArrayList<>();
    int tries = 0;
    int errors = 0;
    int directAcks = 0;
    synchronized (posts) {
      for (Post p : posts) {
        long answered = p.at() + p.millis();
        if (p.direct() && p.outcome().equals("202") && answered >= from && answered < to) {
          directAcks++;
        }
        if (p.at() >= from && p.at() < to) {
          tries++;
          if (p.outcome().startsWith("5")) {
            errors++;
          } else if (p.outcome().equals("202")) {
            ok.add(p.millis());
          }
        }
      }
    }
    java.util.Collections.sort(ok);
    return new PostStats(tries, errors, percentile(ok, 0.50), percentile(ok, 0.99), directAcks);
  }

  static double percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  long batches() {
    return batches.get();
  }

  long records() {
    return records.get();
  }

  /** Stops both schedules and waits for the producer's last acks. */
  @Override
  public void close() throws InterruptedException {
    posters.shutdown();
    if (!posters.awaitTermination(1, TimeUnit.MINUTES)) {
      posters.shutdownNow();
    }
    producer.flush();
    producer.close(Duration.ofSeconds(30));
  }
}
