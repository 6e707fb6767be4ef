package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.health.HealthState;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The management port serves metrics and health without credentials, and nothing else. */
@Timeout(60)
class ManagementVerticleTest {
  @Test
  void metricsAndHealthAreServedAndTheApiIsNot() throws Exception {
    AmberConfig config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of("http.host", "127.0.0.1", "http.management-port", "0"));
    Vertx vertx = Vertx.vertx();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.counter("amber.test.things").increment();
    try {
      ManagementVerticle m =
          new ManagementVerticle(config, new HealthState(config.ingest().mode()), registry);
      vertx.deployVerticle(m).await(10, TimeUnit.SECONDS);
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      String base = "http://127.0.0.1:" + m.actualPort();
      HttpResponse<String> metrics = get(http, base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("amber_test_things_total");
      assertThat(get(http, base + "/health/live").statusCode()).isEqualTo(200);
      assertThat(get(http, base + "/health/ready").statusCode()).isEqualTo(503);
      assertThat(get(http, base + "/api/v1/stats/status").statusCode()).isEqualTo(404);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
      registry.close();
    }
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
