package io.ambergarden.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.NavigableMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {
  private static final String NAME = "amber_read_latency_seconds";
  private static final String LABEL = "stage=\"http\"";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer timer =
      Timer.builder("amber.read.latency")
          .tag("stage", "http")
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofMillis(1))
          .maximumExpectedValue(Duration.ofSeconds(10))
          .register(registry);

  private NavigableMap<Double, Double> scrape() {
    return PrometheusText.buckets(registry.scrape(), NAME, LABEL);
  }

  private void record(int times, long millis) {
    for (int i = 0; i < times; i++) {
      timer.record(millis, TimeUnit.MILLISECONDS);
    }
  }

  @Test
  void quantilesComeOnlyFromWhatWasRecordedBetweenTheScrapes() {
    record(1000, 900); // before the window: must not count
    NavigableMap<Double, Double> before = scrape();
    record(980, 4);
    record(20, 200);
    NavigableMap<Double, Double> after = scrape();

    double p50 = PrometheusText.quantileBetween(before, after, 0.50);
    double p99 = PrometheusText.quantileBetween(before, after, 0.99);
    // within the bucket that holds the value (Micrometer's buckets are ~10-30% wide here)
    assertThat(p50).isCloseTo(0.004, within(0.0015));
    assertThat(p99).isCloseTo(0.200, within(0.06));
    assertThat(PrometheusText.quantileBetween(scrape(), scrape(), 0.99))
        .as("nothing recorded in between")
        .isNaN();
  }

  @Test
  void aQuantileBeyondTheLastBoundIsThatBound() {
    NavigableMap<Double, Double> before = scrape();
    record(10, 60_000);
    double p99 = PrometheusText.quantileBetween(before, scrape(), 0.99);
    assertThat(p99).isEqualTo(scrape().lowerKey(Double.POSITIVE_INFINITY));
  }

  @Test
  void bucketsAreCumulativeAndEndAtInfinity() {
    record(3, 5);
    NavigableMap<Double, Double> b = scrape();
    assertThat(b.lastKey()).isInfinite();
    assertThat(b.lastEntry().getValue()).isEqualTo(3.0);
    assertThat(b.firstEntry().getValue()).isEqualTo(0.0);
  }
}
