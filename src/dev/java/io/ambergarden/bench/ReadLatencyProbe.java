package io.ambergarden.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * (e) Read latency while the service ingests: each endpoint is asked at a fixed rate for a random
 * device of the measured set. Requests are sent on schedule, not after the previous answer, and
 * each one's latency runs from the time it was due ({@link OpenLoop}), not from when the timer got
 * to it, so neither a slow answer nor a late timer hides the wait of the requests behind it; past
 * {@link #MAX_IN_FLIGHT} open requests a tick is counted as skipped. The client is Vert.x's on one
 * event loop with kept-alive connections: the JDK client cost ~2.5 ms of CPU per request here,
 * taken from the cores the service and Cassandra share with the harness.
 */
final class ReadLatencyProbe implements AutoCloseable {
  static final int MAX_IN_FLIGHT = 64;

  /**
   * The floor: a request through the same client, server and event loops that does no storage work.
   * A read does all of its work and more, so its latency at a load is no lower than this one's
   * ({@link LatencyFloors}).
   */
  static final String NO_STORAGE_PATH = "/health/live";

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** One endpoint under one condition, such as "during (b) at full rate". */
  record Summary(
      String condition,
      String endpoint,
      long count,
      double p50Millis,
      double p99Millis,
      double maxMillis,
      long notFound,
      long errors,
      long skipped) {
    private static final Summary NONE =
        new Summary("", "", 0, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0);

    /** The summary of the endpoint whose name contains {@code endpoint}; NaN figures if none. */
    static Summary of(List<Summary> summaries, String endpoint) {
      return summaries.stream()
          .filter(x -> x.endpoint().contains(endpoint))
          .findFirst()
          .orElse(NONE);
    }
  }

  private final Vertx vertx =
      Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
  private final HttpClientAgent client;
  private final ScheduledExecutorService timer =
      Executors.newScheduledThreadPool(
          1,
          r -> {
            Thread t = new Thread(r, "bench-reads");
            t.setDaemon(true);
            return t;
          });
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final List<String> deviceIds;

  ReadLatencyProbe(int port, List<String> deviceIds) {
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setDefaultHost("127.0.0.1")
                .setDefaultPort(port)
                .setConnectTimeout(5_000)
                .setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(MAX_IN_FLIGHT * 2));
    this.deviceIds = List.copyOf(deviceIds);
    endpoints.add(
        new Endpoint(
            "GET /devices/{id}/events?limit=100",
            id -> "/api/v1/devices/" + id + "/events?limit=100"));
    endpoints.add(
        new Endpoint("GET /devices/{id}/latest", id -> "/api/v1/devices/" + id + "/latest"));
    endpoints.add(new Endpoint("GET " + NO_STORAGE_PATH + " (no storage)", id -> NO_STORAGE_PATH));
  }

  List<Endpoint> endpoints() {
    return endpoints;
  }

  /**
   * Starts {@code ratePerSecond} requests per second on each endpoint and a progress line every 5
   * s.
   */
  void start(int ratePerSecond) {
    long periodMicros = 1_000_000L / ratePerSecond;
    SplittableRandom random = new SplittableRandom(4); // used by the timer's single thread only
    for (Endpoint e : endpoints) {
      // a fixed-rate timer runs late ticks back to back, so tick k is the one due at start + k
      // periods
      OpenLoop schedule = new OpenLoop(1e6 / periodMicros, System.nanoTime());
      AtomicLong tick = new AtomicLong();
      timer.scheduleAtFixedRate(
          () ->
              e.send(
                  deviceIds.get(random.nextInt(deviceIds.size())),
                  schedule.dueNanos(tick.getAndIncrement())),
          0,
          periodMicros,
          TimeUnit.MICROSECONDS);
    }
    timer.scheduleAtFixedRate(this::printProgress, 5, 5, TimeUnit.SECONDS);
  }

  /** Stops sending and waits a little for the answers still open. */
  @Override
  public void close() throws InterruptedException {
    timer.shutdownNow();
    long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
    while (endpoints.stream().anyMatch(e -> e.inFlight.get() > 0) && System.nanoTime() < deadline) {
      // open requests end by answer or by their own timeout; this only bounds the wait
      TimeUnit.MILLISECONDS.sleep(20);
    }
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      System.out.println("  reads: client did not close within 10 s");
    }
  }

  List<Summary> summaries(String condition) {
    return endpoints.stream().map(e -> e.summary(condition)).toList();
  }

  private void printProgress() {
    StringBuilder line = new StringBuilder("  reads ");
    for (Endpoint e : endpoints) {
      Summary s = e.summary("");
      line.append(String.format(" | %s n=%,d p99 %.1f ms", s.endpoint(), s.count(), s.p99Millis()));
    }
    System.out.println(line);
  }

  final class Endpoint {
    private final String name;
    private final UnaryOperator<String> uriOfDevice;
    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private final Histogram sinceLastInterval = new Histogram(3);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong notFound = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();

    private Endpoint(String name, UnaryOperator<String> uriOfDevice) {
      this.name = name;
      this.uriOfDevice = uriOfDevice;
    }

    String name() {
      return name;
    }

    private void send(String deviceId, long dueNanos) {
      if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
        inFlight.decrementAndGet();
        skipped.incrementAndGet();
        return;
      }
      RequestOptions request =
          new RequestOptions()
              .setMethod(HttpMethod.GET)
              .setURI(uriOfDevice.apply(deviceId))
              .setIdleTimeout(REQUEST_TIMEOUT.toMillis());
      client
          .request(request)
          .compose(req -> req.send().compose(resp -> resp.body().map(body -> resp.statusCode())))
          .onComplete(
              (status, err) -> {
                long micros = Math.max(0, System.nanoTime() - dueNanos) / 1000;
                inFlight.decrementAndGet();
                if (err != null || (status != 200 && status != 404)) {
                  errors.incrementAndGet();
                  return;
                }
                if (status == 404) {
                  notFound.incrementAndGet();
                }
                recorder.recordValue(micros);
              });
    }

    /** p99 in ms of the answers since the last call, NaN if none. */
    synchronized double intervalP99Millis() {
      drain();
      double p99 =
          sinceLastInterval.getTotalCount() == 0
              ? Double.NaN
              : sinceLastInterval.getValueAtPercentile(99) / 1000.0;
      sinceLastInterval.reset();
      return p99;
    }

    synchronized Summary summary(String condition) {
      drain();
      return new Summary(
          condition,
          name,
          total.getTotalCount(),
          total.getValueAtPercentile(50) / 1000.0,
          total.getValueAtPercentile(99) / 1000.0,
          total.getMaxValue() / 1000.0,
          notFound.get(),
          errors.get(),
          skipped.get());
    }

    private void drain() {
      Histogram latest = recorder.getIntervalHistogram();
      total.add(latest);
      sinceLastInterval.add(latest);
    }
  }
}
