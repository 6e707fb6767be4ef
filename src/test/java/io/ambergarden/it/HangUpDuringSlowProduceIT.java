package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.PrometheusText;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F17 in kafka mode: clients that hang up while their events wait for a slow broker. The broker is
 * stopped and continued in cycles (SIGSTOP, SIGCONT) while 50 clients post 4 MiB bodies and hang up
 * after 1 s, again and again. The events of a request that lost its client stay counted in the
 * ingest budget until they are handed to the producer or dropped at the request's deadline, so the
 * service's heap after a full GC stays under the ingest byte budget plus its idle baseline plus 64
 * MiB; afterwards the budgets are back to 0 and a POST gets 202.
 */
@ExtendWith(RealServers.class)
@Timeout(240)
class HangUpDuringSlowProduceIT {
  private static final int CLIENTS = 50;
  private static final int BODY = 4 << 20;
  private static final long BUDGET = 64L << 20;
  private static final long ALLOWANCE = 64L << 20;
  private static final Duration STORM = Duration.ofSeconds(30);

  @Test
  void clientsThatHangUpOnASlowBrokerNeverHoldMoreThanTheIngestBudgetInMemory() throws Exception {
    String topic = "it-hangup-" + UUID.randomUUID().toString().substring(0, 8);
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
            "ingest.max-in-flight-bytes",
            Long.toString(BUDGET),
            "ingest.produce-timeout",
            "5s",
            "http.max-connections",
            "400");
    byte[] body = OverloadIT.body("hangup-" + topic).getBytes();
    KafkaBroker broker = RealServers.runtime().kafka();
    try (ServiceProcess svc = ServiceProcess.start("hangup", cfg)) {
      // the idle baseline, after one accepted POST has loaded the ingest path
      assertThat(post(svc, body).statusCode()).isEqualTo(202);
      long baseline = heapAfterFullGc(svc);

      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger connections = new AtomicInteger();
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      ScheduledExecutorService cycles = Executors.newSingleThreadScheduledExecutor();
      List<Long> samples = new ArrayList<>();
      try {
        for (int i = 0; i < CLIENTS; i++) {
          clients.execute(() -> postAndHangUp(svc, body, stop, connections));
        }
        // the broker is stopped for 2 s of every 3: sends meet a full buffer and block
        AtomicInteger tick = new AtomicInteger();
        cycles.scheduleAtFixedRate(
            () -> {
              if (tick.getAndIncrement() % 3 == 2) {
                broker.resume();
              } else {
                broker.pause();
              }
            },
            0,
            1,
            TimeUnit.SECONDS);
        long end = System.nanoTime() + STORM.toNanos();
        await()
            .atMost(STORM.plusSeconds(60))
            .pollDelay(Duration.ofSeconds(3))
            .pollInterval(Duration.ofSeconds(3))
            .until(
                () -> {
                  samples.add(heapAfterFullGc(svc));
                  return System.nanoTime() > end;
                });
      } finally {
        stop.set(true);
        cycles.shutdownNow();
        assertThat(cycles.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        broker.resume();
        clients.shutdownNow();
        assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      }
      long peak = samples.stream().mapToLong(Long::longValue).max().orElseThrow();
      ItLog.printf(
          "[HangUpDuringSlowProduceIT] %d connections hung up after 1 s in %s of broker stop/cont"
              + " cycles; heap after full GC: idle %d MiB, during the storm %s MiB (peak %d MiB,"
              + " bound %d MiB)%n",
          connections.get(),
          STORM,
          baseline >> 20,
          samples.stream().map(b -> Long.toString(b >> 20)).toList(),
          peak >> 20,
          (BUDGET + baseline + ALLOWANCE) >> 20);
      assertThat(svc.logText()).doesNotContain("OutOfMemoryError");
      assertThat(peak)
          .as("heap after a full GC while clients hang up on a slow broker")
          .isLessThan(BUDGET + baseline + ALLOWANCE);
      // every budget taken is given back, and the pod keeps accepting
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                String m = metrics(svc);
                assertThat(PrometheusText.sum(m, "amber_http_ingest_requests")).isZero();
                assertThat(PrometheusText.sum(m, "amber_http_ingest_bytes")).isZero();
              });
      await().atMost(Duration.ofSeconds(30)).until(() -> post(svc, body).statusCode() == 202);
    }
  }

  /** Posts the body and hangs up 1 s after connecting, answered or not; again until stopped. */
  private static void postAndHangUp(
      ServiceProcess svc, byte[] body, AtomicBoolean stop, AtomicInteger connections) {
    String head =
        "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + TestKeys.admin()
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    while (!stop.get() && !Thread.currentThread().isInterrupted()) {
      long hangUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      try (Socket s = new Socket("127.0.0.1", svc.port())) {
        connections.incrementAndGet();
        s.setSoTimeout(1000);
        OutputStream out = s.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        // wait out the second (an answer before it is read and ignored)
        long left;
        while ((left = hangUpAt - System.nanoTime()) > 0) {
          s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
          try {
            if (s.getInputStream().read(new byte[8192]) < 0) {
              break;
            }
          } catch (java.net.SocketTimeoutException e) {
            break;
          }
        }
        s.setSoLinger(true, 0); // hang up: a reset, as a device losing its network
      } catch (IOException e) {
        // the server closed first (a refused body is drained, then closed): go again
      }
    }
  }

  private static HttpResponse<String> post(ServiceProcess svc, byte[] body) {
    return TestService.send(
        HttpRequest.newBuilder(svc.uri("/api/v1/events"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build());
  }

  private static String metrics(ServiceProcess svc) {
    return TestService.send(
            HttpRequest.newBuilder(svc.uri("/metrics"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build())
        .body();
  }

  /**
   * Runs a full GC in the service (jcmd) and reads what it left in the old generation (the clients
   * keep posting meanwhile, so the whole heap's use would count their newest bodies too).
   */
  private static long heapAfterFullGc(ServiceProcess svc) throws Exception {
    Process jcmd =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(svc.process().pid()),
                "GC.run")
            .redirectErrorStream(true)
            .start();
    assertThat(jcmd.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return (long) PrometheusText.sum(metrics(svc), "jvm_gc_live_data_size_bytes");
  }
}
