package io.ambergarden.bench;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * (f) Ingest-to-live latency: events produced to the input topic at a fixed rate, timed from send()
 * to their arrival on a WebSocket subscribed to the probe device. One JVM, so one clock.
 */
final class LiveLatencyProbe {
  record Summary(long count, double p50Millis, double p99Millis, double maxMillis) {}

  private LiveLatencyProbe() {}

  /** {@link #measure} on a thread of its own, alongside a load. */
  static java.util.concurrent.CompletableFuture<Summary> start(
      String bootstrap, String topic, int httpPort, int events, int perSecond) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return measure(bootstrap, topic, httpPort, events, perSecond);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  static Summary measure(String bootstrap, String topic, int httpPort, int events, int perSecond)
      throws Exception {
    String device = "live-probe-" + System.nanoTime();
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    Histogram latency = new Histogram(60_000_000_000L, 3);
    CountDownLatch live = new CountDownLatch(1);
    CountDownLatch all = new CountDownLatch(events);
    WebSocket ws =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .buildAsync(
                URI.create("ws://127.0.0.1:" + httpPort + "/api/v1/live?devices=" + device),
                new WebSocket.Listener() {
                  private final StringBuilder partial = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    partial.append(data);
                    if (last) {
                      long now = System.nanoTime();
                      JsonObject m = new JsonObject(partial.toString());
                      partial.setLength(0);
                      if ("live".equals(m.getString("type"))) {
                        live.countDown();
                      } else if ("event".equals(m.getString("type"))) {
                        Long t0 = sentAt.remove(m.getJsonObject("event").getString("eventId"));
                        if (t0 != null) {
                          synchronized (latency) {
                            latency.recordValue(Math.max(0, now - t0));
                          }
                          all.countDown();
                        }
                      }
                    }
                    w.request(1);
                    return null;
                  }
                })
            .get(10, TimeUnit.SECONDS);
    try {
      if (!live.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("live feed did not open");
      }
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("linger.ms", "0");
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
        long period = 1_000_000_000L / perSecond;
        long start = System.nanoTime();
        for (int i = 0; i < events; i++) {
          long due = start + i * period;
          // pacing a load generator to a fixed rate, not waiting for a condition
          long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          String id = "p" + i;
          byte[] value =
              ("{\"deviceId\":\""
                      + device
                      + "\",\"ts\":"
                      + System.currentTimeMillis()
                      + ",\"eventId\":\""
                      + id
                      + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          sentAt.put(id, System.nanoTime());
          producer.send(
              new ProducerRecord<>(topic, device.getBytes(StandardCharsets.UTF_8), value));
        }
        producer.flush();
      }
      all.await(60, TimeUnit.SECONDS);
    } finally {
      ws.abort();
    }
    synchronized (latency) {
      return new Summary(
          latency.getTotalCount(),
          latency.getValueAtPercentile(50) / 1e6,
          latency.getValueAtPercentile(99) / 1e6,
          latency.getMaxValue() / 1e6);
    }
  }
}
