package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecondSamplerTest {
  @Test
  void stoppingAGaugeTakesAFinalSampleAndNanAddsNoPoint() {
    try (SecondSampler sampler = new SecondSampler()) {
      TimeSeries measured = sampler.gauge("p99", () -> 12.5);
      TimeSeries idle = sampler.gauge("idle", () -> Double.NaN);

      sampler.stop(measured);
      sampler.stop(idle);

      assertThat(measured.points()).extracting(TimeSeries.Point::value).containsExactly(12.5);
      assertThat(idle.points()).isEmpty();
      assertThat(sampler.gauges()).containsExactly(measured, idle);
    }
  }

  @Test
  void aFinalRateIntervalTooShortToMeanAnythingIsDropped() {
    try (SecondSampler sampler = new SecondSampler()) {
      long[] counter = {0};
      TimeSeries series = sampler.rate("phase", () -> counter[0]);
      counter[0] = 1_000_000;

      sampler.stop(series);

      assertThat(series.points()).isEmpty();
      assertThat(sampler.rates()).containsExactly(series);
    }
  }
}
