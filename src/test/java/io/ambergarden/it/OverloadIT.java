package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F11 with large bodies: 600 clients upload 4 MiB each at once to a service in its own JVM with a
 * 512 MiB heap. Admission before the body (one process-wide budget of requests and bytes), the
 * connection cap and early refusals keep it alive: no OutOfMemoryError, only 202/413/429/503, the
 * heap after GC well under the cap, and ready again within seconds.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class OverloadIT {
  private static final int CLIENTS = 600;
  private static final int BODY = 4 << 20;
  private static final int SLICE = 64 << 10;
  private static final long MAX_HEAP = 512L << 20;

  /** One 4 MiB body of 1000 valid events, shared by every upload (the test holds it once). */
  static Buffer body(String device) {
    StringBuilder sb = new StringBuilder(BODY).append('[');
    long ts = System.currentTimeMillis() - 60_000;
    String blob = "x".repeat(4000);
    for (int i = 0; i < 1000; i++) {
      sb.append(i == 0 ? "" : ",")
          .append("{\"deviceId\":\"")
          .append(device)
          .append("\",\"ts\":")
          .append(ts + i)
          .append(",\"eventId\":\"o")
          .append(i)
          .append("\",\"code\":200,\"payload\":{\"blob\":\"")
          .append(blob)
          .append("\"}}");
    }
    sb.append(']');
    // JSON allows trailing whitespace: pad to exactly 4 MiB
    sb.append(" ".repeat(BODY - sb.length()));
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    assertThat(bytes).hasSize(BODY);
    return Buffer.buffer(bytes);
  }

  @Test
  void sixHundredConcurrentLargeUploadsNeverExhaustTheHeap() throws Exception {
    String topic = "it-overload-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> cfg =
        Map.of(
            "kafka.topic",
            topic,
            "kafka.dlq-topic",
            topic + ".dlq",
            "kafka.group-id",
            topic + "-group",
            "kafka.consumer.enabled",
            "false",
            "live.topic",
            topic + ".live",
            // a third of the uploads meet the connection cap; beyond twice the cap a connection
            // would be closed without an answer, which 600 clients never reach
            "http.max-connections",
            "400",
            // slow uploads are not under test: a loaded machine must not turn admitted ones into
            // 408s
            "http.body-timeout",
            "120s");
    Buffer shared = body("overload-" + UUID.randomUUID().toString().substring(0, 8));
    Vertx vertx = Vertx.vertx();
    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    AtomicLong peakHeap = new AtomicLong();
    AtomicLong peakLive = new AtomicLong();
    try (ServiceProcess svc = ServiceProcess.start("overload", cfg)) {
      HttpClient client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setKeepAlive(false)
                  .setDefaultHost("127.0.0.1")
                  .setDefaultPort(svc.port())
                  .setConnectTimeout(30_000),
              new PoolOptions().setHttp1MaxSize(CLIENTS).setMaxWaitQueueSize(CLIENTS));
      long t0 = System.nanoTime();
      List<Future<String>> uploads = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        uploads.add(upload(client, shared, Style.values()[i % 3]));
      }
      // the heap while the uploads run, sampled from the service's own metrics
      Future<?> all = Future.join(uploads);
      await()
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                sampleHeap(svc, peakHeap, peakLive);
                return all.isComplete();
              });
      long burstMs = (System.nanoTime() - t0) / 1_000_000;
      for (Future<String> f : uploads) {
        outcomes.merge(f.isComplete() ? f.result() : "unfinished", 1, Integer::sum);
      }
      // ready again within seconds
      long afterBurst = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(svc::isReady);
      long readyMs = (System.nanoTime() - afterBurst) / 1_000_000;
      long afterGc = heapAfterGc(svc);
      String log = svc.logText();
      String scrape =
          TestService.send(java.net.http.HttpRequest.newBuilder(svc.uri("/metrics")).GET().build())
              .body();
      scrape
          .lines()
          .filter(l -> l.startsWith("amber_http_shed_total") || l.startsWith("vertx_http_server"))
          .forEach(ItLog::println);
      ItLog.printf(
          "overload: %d uploads of %d bytes in %d ms: %s; heap peak %d MiB used, %d MiB live after"
              + " GC during the burst, %d MiB after a full GC; ready %d ms after%n",
          CLIENTS,
          BODY,
          burstMs,
          outcomes,
          peakHeap.get() >> 20,
          peakLive.get() >> 20,
          afterGc >> 20,
          readyMs);
      assertThat(log).doesNotContain("OutOfMemoryError");
      assertThat(svc.process().isAlive()).isTrue();
      assertThat(outcomes.keySet())
          .as("only 202, 413, 429 or 503 (with the reason after the code)")
          .allMatch(o -> o.matches("\\w+ (202|413|429|503) .*"));
      assertThat(outcomes.keySet()).anyMatch(o -> o.contains(" 202 "));
      assertThat(outcomes.keySet()).anyMatch(o -> o.contains(" 503 "));
      assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CLIENTS);
      assertThat(peakLive.get())
          .as("old generation after GC during the burst")
          .isLessThan(MAX_HEAP / 2);
      assertThat(afterGc).as("heap after a full GC").isLessThan(MAX_HEAP / 4);
      assertThat(readyMs).isLessThan(10_000);
      HttpResponse<String> metrics =
          TestService.send(java.net.http.HttpRequest.newBuilder(svc.uri("/metrics")).GET().build());
      assertThat(PrometheusText.sum(metrics.body(), "amber_http_ingest_bytes")).isZero();
      assertThat(PrometheusText.sum(metrics.body(), "amber_http_ingest_requests")).isZero();
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** How a client sends its body. */
  enum Style {
    /** Transfer-Encoding: chunked, no length known up front. */
    CHUNKED,
    /** Content-Length, body sent at once. */
    SIZED,
    /** Content-Length with Expect: 100-continue: the body only once admitted, as curl does. */
    EXPECTING
  }

  /**
   * Streams the shared body in slices with back-pressure; stops sending as soon as an answer
   * arrives. Completes with "style status reason".
   */
  private static Future<String> upload(HttpClient client, Buffer body, Style style) {
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setURI("/api/v1/events")
            .putHeader("Content-Type", "application/json")
            .putHeader("Authorization", "Bearer " + TestKeys.admin());
    return client
        .request(opts)
        .compose(
            req -> {
              Promise<String> outcome = Promise.promise();
              boolean[] ended = {false};
              if (style == Style.CHUNKED) {
                req.setChunked(true);
              } else {
                req.putHeader("Content-Length", Integer.toString(BODY));
              }
              req.response()
                  .compose(resp -> resp.body().map(b -> resp.statusCode() + " " + reason(b)))
                  .onComplete(
                      ar -> {
                        outcome.tryComplete(ar.succeeded() ? ar.result() : "error " + ar.cause());
                        if (!ended[0]) {
                          req.reset(); // answered early: stop sending the rest
                        }
                      });
              if (style == Style.EXPECTING) {
                req.putHeader("Expect", "100-continue");
                req.continueHandler(v -> send(req, body, 0, outcome, ended));
                req.sendHead();
              } else {
                send(req, body, 0, outcome, ended);
              }
              return outcome.future();
            })
        .recover(err -> Future.succeededFuture("error " + err.getClass().getSimpleName()))
        .map(o -> style.name().toLowerCase(java.util.Locale.ROOT) + " " + o);
  }

  private static String reason(Buffer b) {
    try {
      return new JsonObject(b).getString("detail", "");
    } catch (RuntimeException e) {
      return "";
    }
  }

  private static void send(
      HttpClientRequest req, Buffer body, int from, Promise<String> outcome, boolean[] ended) {
    int at = from;
    while (at < body.length() && !outcome.future().isComplete()) {
      if (req.writeQueueFull()) {
        int next = at;
        req.drainHandler(v -> send(req, body, next, outcome, ended));
        return;
      }
      int end = Math.min(body.length(), at + SLICE);
      req.write(body.slice(at, end));
      at = end;
    }
    if (!outcome.future().isComplete()) {
      ended[0] = true;
      req.end();
    }
  }

  private static void sampleHeap(ServiceProcess svc, AtomicLong peakHeap, AtomicLong peakLive) {
    try {
      String m =
          TestService.send(
                  java.net.http.HttpRequest.newBuilder(svc.uri("/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .GET()
                      .build())
              .body();
      peakHeap.accumulateAndGet(
          (long) PrometheusText.sum(m, "jvm_memory_used_bytes", "area=\"heap\""), Math::max);
      peakLive.accumulateAndGet(
          (long) PrometheusText.sum(m, "jvm_gc_live_data_size_bytes"), Math::max);
    } catch (RuntimeException e) {
      // a busy service may miss a sample; the others count
    }
  }

  /** Runs a full GC in the service (jcmd) and reads the heap it left. */
  private static long heapAfterGc(ServiceProcess svc) throws Exception {
    Process jcmd =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(svc.process().pid()),
                "GC.run")
            .redirectErrorStream(true)
            .start();
    assertThat(jcmd.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String m =
        TestService.send(java.net.http.HttpRequest.newBuilder(svc.uri("/metrics")).GET().build())
            .body();
    return (long) PrometheusText.sum(m, "jvm_memory_used_bytes", "area=\"heap\"");
  }
}
