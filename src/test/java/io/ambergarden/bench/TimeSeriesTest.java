package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimeSeriesTest {
  @Test
  void rateIsCounterDeltaPerSecond() {
    assertThat(TimeSeries.rate(1_000, 3_500, 0, 500_000_000L)).isEqualTo(5_000);
    assertThat(TimeSeries.rate(0, 10, 2_000_000_000L, 4_000_000_000L)).isEqualTo(5);
  }

  @Test
  void rateOfAnEmptyIntervalIsZero() {
    assertThat(TimeSeries.rate(5, 9, 1_000, 1_000)).isZero();
  }

  @Test
  void pointsAreASnapshotInInsertionOrder() {
    TimeSeries s = new TimeSeries("x");
    s.add(1, 10);
    var snapshot = s.points();
    s.add(2, 20);

    assertThat(snapshot).containsExactly(new TimeSeries.Point(1, 10));
    assertThat(s.points()).extracting(TimeSeries.Point::value).containsExactly(10.0, 20.0);
  }
}
