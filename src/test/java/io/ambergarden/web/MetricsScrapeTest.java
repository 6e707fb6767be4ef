package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A slow scrape must not hold the event loop that serves the other routes. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, timeUnit = TimeUnit.SECONDS)
class MetricsScrapeTest {
  private static final long SCRAPE_MILLIS = 1_500;

  @Test
  void aRequestDuringASlowScrapeIsAnsweredBeforeTheScrapeEnds(Vertx vertx, VertxTestContext ctx) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    boolean[] slow = {false};
    CompletableFuture<Void> scrapeUnderWay = new CompletableFuture<>();
    // a meter that takes SCRAPE_MILLIS to read stands for a large registry's scrape
    Gauge.builder(
            "amber.slow.gauge",
            () -> {
              if (slow[0]) {
                scrapeUnderWay.complete(null);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SCRAPE_MILLIS));
              }
              return 42;
            })
        .register(registry);
    Router router = Router.router(vertx);
    router.get("/metrics").handler(new MetricsScrape(registry));
    router.get("/ping").handler(rc -> rc.response().end("pong"));
    HttpClient client = vertx.createHttpClient();
    vertx
        .createHttpServer()
        .requestHandler(router)
        .listen(0)
        .compose(
            server -> {
              int port = server.actualPort();
              // both routes once at full speed, so class loading and connections are not timed
              return body(client, port, "/ping")
                  .compose(v -> body(client, port, "/metrics"))
                  .compose(
                      v -> {
                        slow[0] = true;
                        long t0 = System.nanoTime();
                        Future<HttpClientResponse> scrape = get(client, port, "/metrics");
                        // the ping goes out once the scrape is reading the slow meter
                        Future<Long> pingDone =
                            Future.fromCompletionStage(scrapeUnderWay, vertx.getOrCreateContext())
                                .compose(x -> body(client, port, "/ping"))
                                .map(b -> System.nanoTime() - t0);
                        Future<Buffer> scraped =
                            scrape.compose(
                                r -> {
                                  ctx.verify(
                                      () ->
                                          assertThat(r.getHeader("content-type"))
                                              .isEqualTo(MetricsScrape.CONTENT_TYPE));
                                  return r.body();
                                });
                        Future<Long> scrapeDone = scraped.map(b -> System.nanoTime() - t0);
                        return Future.all(pingDone, scrapeDone)
                            .onSuccess(
                                all ->
                                    ctx.verify(
                                        () -> {
                                          assertThat(scraped.result().toString())
                                              .contains("amber_slow_gauge 42.0");
                                          assertThat(scrapeDone.result())
                                              .isGreaterThanOrEqualTo(
                                                  TimeUnit.MILLISECONDS.toNanos(SCRAPE_MILLIS));
                                          assertThat(pingDone.result())
                                              .as("the ping was answered before the scrape ended")
                                              .isLessThan(scrapeDone.result());
                                        }));
                      });
            })
        .onComplete(ctx.succeedingThenComplete());
  }

  private static Future<HttpClientResponse> get(HttpClient client, int port, String path) {
    return client.request(HttpMethod.GET, port, "127.0.0.1", path).compose(req -> req.send());
  }

  private static Future<Buffer> body(HttpClient client, int port, String path) {
    return get(client, port, path).compose(HttpClientResponse::body);
  }
}
