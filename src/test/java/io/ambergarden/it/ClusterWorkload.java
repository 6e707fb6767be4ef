package io.ambergarden.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * HTTP batches and Kafka records with known identities, sent until stopped: remembers which events
 * were acknowledged (202, or the broker's ack), every answer that was not a 202, and the latency of
 * every post. Events of one run share one past time bucket, so a device's rows are one partition.
 */
final class ClusterWorkload implements AutoCloseable {
  /** An acknowledged event: its device and its identity (ts and event id). */
  record Acked(String deviceId, long ts, String eventId) {}

  /** A post that got no 202. */
  record Refusal(int status, String retryAfter, String body) {}

  /**
   * How often each posting thread posts and the producer sends; zero sends back to back. A thread
   * that falls behind sends at once and does not catch up in a burst.
   */
  record Pace(Duration perPost, Duration perRecord) {
    /** Back to back: the box is saturated (latency under load). */
    static final Pace FLAT_OUT = new Pace(Duration.ZERO, Duration.ZERO);
  }

  /** One post: when it was sent ({@link System#nanoTime()}) and how long its answer took. */
  record Post(long sentNanos, long latencyNanos) {
    double millis() {
      return latencyNanos / 1e6;
    }
  }

  private final TestService service;
  private final List<String> devices;
  private final long baseTs;
  private final AtomicInteger seq = new AtomicInteger();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final ExecutorService pool;
  final Set<Acked> acked = ConcurrentHashMap.newKeySet();
  final List<Refusal> refusals = Collections.synchronizedList(new ArrayList<>());
  final List<Post> posts = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger httpAcked = new AtomicInteger();
  private final String prefix;
  private volatile Pace pace;

  /**
   * {@code httpThreads} posting threads with batches of {@code batch} events, and a Kafka producer
   * (when {@code kafka} is true) sending one record at a time to the service's topic, at {@code
   * pace}.
   */
  ClusterWorkload(
      TestService service,
      String prefix,
      int deviceCount,
      long baseTs,
      int httpThreads,
      int batch,
      boolean kafka,
      Pace pace) {
    this.service = service;
    this.prefix = prefix;
    this.pace = pace;
    this.baseTs = baseTs;
    List<String> ds = new ArrayList<>();
    for (int i = 0; i < deviceCount; i++) {
      ds.add(prefix + "-" + i);
    }
    this.devices = List.copyOf(ds);
    this.pool = Executors.newFixedThreadPool(httpThreads + 1);
    for (int t = 0; t < httpThreads; t++) {
      pool.submit(() -> postUntilStopped(batch));
    }
    if (kafka) {
      pool.submit(this::produceUntilStopped);
    }
  }

  /** Sends at {@code p} from now on. */
  void pace(Pace p) {
    pace = p;
  }

  List<String> devices() {
    return devices;
  }

  private void postUntilStopped(int batch) {
    long next = System.nanoTime();
    while (running.get()) {
      next = awaitTurn(next, pace.perPost());
      List<Acked> events = new ArrayList<>();
      JsonArray body = new JsonArray();
      for (int i = 0; i < batch; i++) {
        int n = seq.incrementAndGet();
        Acked a = new Acked(devices.get(n % devices.size()), baseTs + n, prefix + "-h" + n);
        events.add(a);
        body.add(json(a));
      }
      long t0 = System.nanoTime();
      try {
        HttpResponse<String> r = service.postEvents(body.encode());
        posts.add(new Post(t0, System.nanoTime() - t0));
        if (r.statusCode() == 202) {
          acked.addAll(events);
          httpAcked.addAndGet(events.size());
        } else {
          refusals.add(
              new Refusal(
                  r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), r.body()));
        }
      } catch (RuntimeException e) {
        refusals.add(new Refusal(-1, null, e.toString()));
      }
    }
  }

  /** One record in flight at a time, at most one per {@code pace.perRecord()}. */
  private void produceUntilStopped() {
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(1);
    long next = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = Kafkas.producer()) {
      while (running.get()) {
        if (!inFlight.tryAcquire(5, TimeUnit.SECONDS)) {
          continue; // the broker is slow; look at running again
        }
        next = awaitTurn(next, pace.perRecord());
        int n = seq.incrementAndGet();
        Acked a = new Acked(devices.get(n % devices.size()), baseTs + n, prefix + "-k" + n);
        producer.send(
            new ProducerRecord<>(
                service.topic(),
                a.deviceId().getBytes(StandardCharsets.UTF_8),
                json(a).encode().getBytes(StandardCharsets.UTF_8)),
            (meta, err) -> {
              if (err == null) {
                acked.add(a);
              }
              inFlight.release();
            });
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Parks until {@code due} (a {@link System#nanoTime()}), unless stopped; returns when the next
   * send is due: {@code every} after this one, which is now if this one is late.
   */
  private long awaitTurn(long due, Duration every) {
    if (every.isZero()) {
      return due;
    }
    long now;
    while ((now = System.nanoTime()) - due < 0 && running.get()) {
      LockSupport.parkNanos(due - now); // a load generator's rate, not a wait for a condition
    }
    return Math.max(due, now) + every.toNanos();
  }

  private static JsonObject json(Acked a) {
    return new JsonObject()
        .put("deviceId", a.deviceId())
        .put("ts", a.ts())
        .put("eventId", a.eventId())
        .put("deviceType", "meter")
        .put("status", "normal")
        .put("code", 200)
        .put("metrics", new JsonObject().put("temperature", 20.5));
  }

  /** The acknowledged events of one device. */
  Set<Acked> ackedOf(String device) {
    Set<Acked> out = new java.util.HashSet<>();
    for (Acked a : acked) {
      if (a.deviceId().equals(device)) {
        out.add(a);
      }
    }
    return out;
  }

  /** The posts sent from {@code fromNanos} (inclusive) to {@code toNanos} (exclusive). */
  List<Post> postsSentBetween(long fromNanos, long toNanos) {
    synchronized (posts) {
      return posts.stream()
          .filter(p -> p.sentNanos() - fromNanos >= 0 && p.sentNanos() - toNanos < 0)
          .toList();
    }
  }

  /** Percentile of the latencies of {@code sample}, in milliseconds. */
  static double latencyPercentileMillis(List<Post> sample, double p) {
    if (sample.isEmpty()) {
      return Double.NaN;
    }
    long[] sorted = sample.stream().mapToLong(Post::latencyNanos).sorted().toArray();
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }

  /** Stops sending and waits for the last answers. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    pool.shutdown();
    if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
      pool.shutdownNow();
      throw new IllegalStateException("the workload did not stop within 2 minutes");
    }
  }
}
