package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.bus.SeriesQuery.Point;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SeriesBucketsTest {
  static final long M = 60_000L;
  static final long H = 60 * M;

  @Test
  void valuesAreAggregatedPerAlignedBucketOldestFirst() {
    SeriesBuckets b = new SeriesBuckets(5 * M, 0, H);
    b.addValue(12 * M, 4);
    b.addValue(M, 1);
    b.addValue(2 * M, 3);
    b.addValue(10 * M, -2);
    assertThat(b.points())
        .containsExactly(new Point(0, 2, 1, 3, 2), new Point(10 * M, 2, -2, 4, 1));
  }

  @Test
  void valuesOutsideTheRangeAreNotPartOfTheSeries() {
    SeriesBuckets b = new SeriesBuckets(5 * M, 3 * M, 8 * M);
    b.addValue(3 * M - 1, 100);
    b.addValue(8 * M, 100);
    b.addValue(3 * M, 1);
    b.addValue(8 * M - 1, 2);
    assertThat(b.points()).containsExactly(new Point(0, 1, 1, 1, 1), new Point(5 * M, 1, 2, 2, 2));
  }

  @Test
  void hoursCombineExactlyWithACountWeightedAverage() {
    SeriesBuckets b = new SeriesBuckets(3 * H, 0, 6 * H);
    // hour 0: 1 value of 10; hour 1: 3 values summing to 6 (min 1, max 3)
    b.addHour(0, 1, 10, 10, 10);
    b.addHour(H, 3, 1, 3, 6);
    b.addHour(3 * H, 2, 5, 7, 12);
    assertThat(b.points())
        .containsExactly(new Point(0, 4, 1, 10, 4.0), new Point(3 * H, 2, 5, 7, 6.0));
  }

  @Test
  void hoursAndSingleValuesOfOneBucketCombine() {
    SeriesBuckets b = new SeriesBuckets(2 * H, 0, 2 * H);
    b.addHour(0, 2, -1, 1, 0);
    b.addValue(H + 5, 9);
    b.addValue(H + 6, -3);
    assertThat(b.points()).containsExactly(new Point(0, 4, -3, 9, 1.5));
  }

  @Test
  void combiningHoursGivesWhatTheirValuesGiveDirectly() {
    Random rnd = new Random(30);
    long step = 24 * H;
    SeriesBuckets direct = new SeriesBuckets(step, 0, 3 * step);
    SeriesBuckets hourly = new SeriesBuckets(step, 0, 3 * step);
    for (long h = 0; h < 3 * step; h += H) {
      List<Double> values = new ArrayList<>();
      int n = rnd.nextInt(5);
      for (int i = 0; i < n; i++) {
        double v = Math.round(rnd.nextDouble(-50, 50) * 4) / 4.0;
        values.add(v);
        direct.addValue(h + rnd.nextLong(H), v);
      }
      if (!values.isEmpty()) {
        hourly.addHour(
            h,
            values.size(),
            values.stream().mapToDouble(d -> d).min().orElseThrow(),
            values.stream().mapToDouble(d -> d).max().orElseThrow(),
            values.stream().mapToDouble(d -> d).sum());
      }
    }
    assertThat(hourly.points()).isEqualTo(direct.points()).hasSize(3);
  }

  @Test
  void anEmptyHourAddsNoPoint() {
    SeriesBuckets b = new SeriesBuckets(H, 0, 2 * H);
    b.addHour(H, 0, 0, 0, 0);
    assertThat(b.points()).isEmpty();
  }

  @Test
  void anHourNotWhollyInsideOneBucketOfTheRangeIsABug() {
    SeriesBuckets b = new SeriesBuckets(H, 30 * M, 5 * H);
    assertThatThrownBy(() -> b.addHour(0, 1, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.addHour(5 * H, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SeriesBuckets(30 * M, 0, H).addHour(0, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anEmptyRangeOrAStepOfZeroIsRefused() {
    assertThatThrownBy(() -> new SeriesBuckets(M, 5, 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SeriesBuckets(0, 0, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
