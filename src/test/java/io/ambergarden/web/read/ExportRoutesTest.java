package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.ExportPageQuery;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.Event;
import io.ambergarden.health.HealthState;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ExportLoad;
import io.ambergarden.web.Problems;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The export's pacing against a query endpoint that answers from memory: pages are read only as the
 * client reads, a client that leaves or stalls stops the reads, the cap answers 429, and a first
 * page that fails is a problem.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExportRoutesTest {
  static final int PAGE = 100;
  static final int PAGES = 100;

  /** About 2 KB an event, so a few pages fill the small socket buffers below. */
  static final String PAYLOAD = "\"" + "x".repeat(2000) + "\"";

  private SimpleMeterRegistry registry;
  private ExportLoad load;
  private HttpServer server;
  private HttpClient client;
  private final Map<HttpClientResponse, Future<Buffer>> bodies = new ConcurrentHashMap<>();
  private final AtomicInteger asked = new AtomicInteger();
  private final AtomicReference<String> failWith = new AtomicReference<>();

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    AmberConfig config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of(
                "ingest.mode", "direct",
                "auth.enabled", "false",
                "export.page-size", Integer.toString(PAGE),
                "export.write-queue-bytes", "16384",
                "export.stall-timeout", "1s",
                "export.max-concurrent", "1"));
    LocalCodec.registerAll(vertx);
    registry = new SimpleMeterRegistry();
    load = new ExportLoad(config.export().maxConcurrent(), registry);
    Gatekeeper gate = Gatekeeper.start(vertx, config, null).await(10, TimeUnit.SECONDS);
    Router router = Router.router(vertx);
    new ExportRoutes(
            vertx,
            config,
            new HealthState(config.ingest().mode()),
            new AccessHandler(vertx, gate),
            load)
        .mount(router);
    router.route().failureHandler(new Problems(1)::handle);
    ExportPageQuery.ENDPOINT
        .consumer(
            vertx,
            msg -> {
              asked.incrementAndGet();
              if (failWith.get() != null) {
                FailureCode.UNAVAILABLE.fail(msg, failWith.get());
                return;
              }
              PagePosition pos = msg.body().position();
              int page = pos == null ? 0 : (int) pos.bucket();
              List<Event> items = new ArrayList<>();
              for (int i = 0; i < PAGE; i++) {
                int n = page * PAGE + i;
                items.add(
                    new Event("d", n, "e" + n, null, null, null, Map.of(), Map.of(), PAYLOAD));
              }
              msg.reply(
                  new EventPage(
                      items, page + 1 < PAGES ? new PagePosition(page + 1, 0, "d", "") : null));
            })
        .completion()
        .await(10, TimeUnit.SECONDS);
    // small socket buffers: what the kernel holds for a client that stopped reading stays small
    server =
        vertx
            .createHttpServer(new HttpServerOptions().setSendBufferSize(16 * 1024))
            .requestHandler(router)
            .listen(0)
            .await(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient(new HttpClientOptions().setReceiveBufferSize(16 * 1024));
  }

  @AfterEach
  void stop() {
    registry.close();
  }

  /** An export of device d with {@code query}, sent. */
  private Future<HttpClientResponse> send(String query) {
    return client
        .request(
            HttpMethod.GET,
            server.actualPort(),
            "127.0.0.1",
            "/api/v1/devices/d/events/export" + query)
        .compose(req -> req.send());
  }

  /** The response, paused as it arrives (nothing of the body is lost while the test looks). */
  private HttpClientResponse open(String query) throws Exception {
    return send(query)
        .map(
            r -> {
              r.pause();
              // on the event loop: a body handler set from the test thread can race the response
              bodies.put(r, r.body());
              return r;
            })
        .await(10, TimeUnit.SECONDS);
  }

  /** A refused request's status, content type and body, read as they arrive (no pause). */
  private record Answer(int status, String contentType, String body) {}

  private Answer answer(String query) throws Exception {
    return send(query)
        .compose(
            r ->
                r.body()
                    .map(
                        b -> new Answer(r.statusCode(), r.getHeader("Content-Type"), b.toString())))
        .await(10, TimeUnit.SECONDS);
  }

  /** The whole body of a paused response. */
  private String body(HttpClientResponse r) throws Exception {
    Future<Buffer> body = bodies.get(r);
    r.resume();
    return body.await(30, TimeUnit.SECONDS).toString();
  }

  /** The value once it stopped changing for half a second. */
  private static int steady(AtomicInteger value) {
    AtomicInteger last = new AtomicInteger(value.get());
    AtomicLong since = new AtomicLong(System.nanoTime());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              int now = value.get();
              if (now != last.getAndSet(now)) {
                since.set(System.nanoTime());
              }
              return System.nanoTime() - since.get() > 500_000_000L;
            });
    return value.get();
  }

  private double count(String name, String... tags) {
    var c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void aClientThatReadsEverythingGetsEveryPageOnceInOrder() throws Exception {
    HttpClientResponse r = open("");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("Content-Type")).isEqualTo("application/x-ndjson");
    assertThat(r.getHeader("Content-Disposition"))
        .isEqualTo("attachment; filename=\"d-events.ndjson\"");
    String[] lines = body(r).split("\n");
    assertThat(lines).hasSize(PAGE * PAGES);
    assertThat(lines[PAGE * PAGES - 1]).contains("\"eventId\":\"e" + (PAGE * PAGES - 1) + "\"");
    assertThat(asked.get()).isEqualTo(PAGES);
    await().until(() -> count("amber.export.ended", "outcome", "complete") == 1);
    assertThat(load.active()).isZero();
    assertThat(load.bufferedBytes()).isZero();
  }

  @Test
  void aPausedClientHoldsTheReadsBackAndTheBufferStaysBounded() throws Exception {
    HttpClientResponse r = open("?format=csv&metrics=x");
    AtomicLong received = new AtomicLong();
    r.handler(b -> received.addAndGet(b.length()));
    await().until(() -> count("amber.export.paused") >= 1);
    // the socket buffers take a little more after the first pause; then the reads stop
    int held = steady(asked);
    assertThat(held).isLessThan(PAGES);
    assertThat(load.waiting()).isEqualTo(1);
    // written and not flushed: at most the queue (16 KiB) and one page (about 4 KB of CSV)
    assertThat(load.peakBufferedBytes()).isLessThan(16 * 1024 + 8 * 1024);
    Future<Void> end = r.end();
    r.resume();
    end.await(30, TimeUnit.SECONDS);
    assertThat(asked.get()).isEqualTo(PAGES);
    assertThat(load.waiting()).isZero();
    // CSV rows of "1970-01-01T00:00:00.000Z,e<n>,,,,": at least 30 bytes each
    assertThat(received.get()).isGreaterThan((long) PAGE * PAGES * 30);
  }

  @Test
  void aClientThatDisconnectsStopsTheReads() throws Exception {
    HttpClientResponse r = open("");
    await().until(() -> count("amber.export.paused") >= 1);
    r.request().connection().close();
    await().until(() -> count("amber.export.ended", "outcome", "disconnected") == 1);
    int held = asked.get();
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> asked.get() == held);
    assertThat(held).isLessThan(PAGES);
    assertThat(load.active()).isZero();
    assertThat(load.bufferedBytes()).isZero();
    assertThat(load.waiting()).as("the paused export no longer counts as waiting").isZero();
  }

  @Test
  void aClientThatStopsReadingIsDroppedAfterTheStallTimeout() throws Exception {
    open("");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("amber.export.ended", "outcome", "stalled") == 1);
    assertThat(asked.get()).isLessThan(PAGES);
    assertThat(load.active()).isZero();
  }

  @Test
  void beyondTheCapAnExportIsRefusedWith429() throws Exception {
    HttpClientResponse first = open("");
    await().until(() -> load.active() == 1);
    Answer second = answer("");
    assertThat(second.status()).isEqualTo(429);
    assertThat(second.contentType()).isEqualTo("application/problem+json");
    assertThat(second.body()).contains("export.max-concurrent");
    assertThat(count("amber.export.refused")).isEqualTo(1);
    first.request().connection().close();
  }

  @Test
  void aFirstPageThatFailsIsAProblemAndGivesTheSlotBack() throws Exception {
    failWith.set("store down");
    HttpClientResponse r = open("");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.getHeader("Content-Type")).isEqualTo("application/problem+json");
    await().until(() -> count("amber.export.ended", "outcome", "failed") == 1);
    assertThat(load.active()).isZero();
  }

  @Test
  void csvWithoutMetricsIsA400NamingMetrics() throws Exception {
    Answer r = answer("?format=csv");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).contains("\"field\":\"metrics\"");
    assertThat(asked.get()).isZero();
  }
}
