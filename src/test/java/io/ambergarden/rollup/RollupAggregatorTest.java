package io.ambergarden.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.rollup.RollupAggregator.Stats;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RollupAggregatorTest {
  private static Map<String, Double> row(Object... kv) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], ((Number) kv[i + 1]).doubleValue());
    }
    return m;
  }

  @Test
  void exactCountMinMaxSumAndAvgPerMetricOverSeveralRows() {
    RollupAggregator agg = new RollupAggregator();
    agg.add(row("temp", -5.5, "humidity", 40));
    agg.add(row("temp", 3.25));
    agg.add(row("temp", 0.0, "humidity", 60, "pressure", 1013.25));
    agg.add(row("temp", -1.0));

    Map<String, Stats> r = agg.result();

    assertThat(r).containsOnlyKeys("temp", "humidity", "pressure");
    assertThat(r.get("temp")).isEqualTo(new Stats(4, -5.5, 3.25, -3.25));
    assertThat(r.get("temp").avg()).isEqualTo(-0.8125);
    assertThat(r.get("humidity")).isEqualTo(new Stats(2, 40, 60, 100));
    assertThat(r.get("humidity").avg()).isEqualTo(50.0);
    assertThat(r.get("pressure")).isEqualTo(new Stats(1, 1013.25, 1013.25, 1013.25));
    assertThat(r.get("pressure").avg()).isEqualTo(1013.25);
  }

  @Test
  void allNegativeValuesKeepANegativeMaxAndAllPositiveValuesAPositiveMin() {
    RollupAggregator agg = new RollupAggregator();
    agg.add(row("neg", -3, "pos", 7));
    agg.add(row("neg", -7, "pos", 2));
    agg.add(row("neg", -1, "pos", 9));

    assertThat(agg.result().get("neg")).isEqualTo(new Stats(3, -7, -1, -11));
    assertThat(agg.result().get("pos")).isEqualTo(new Stats(3, 2, 9, 18));
    assertThat(agg.result().get("neg").avg()).isEqualTo(-11.0 / 3);
  }

  @Test
  void theOrderOfTheRowsDoesNotMatter() {
    RollupAggregator forward = new RollupAggregator();
    RollupAggregator backward = new RollupAggregator();
    double[] values = {12.5, -0.25, 99.75, -40, 0.5, 7};
    for (int i = 0; i < values.length; i++) {
      forward.add(row("m", values[i]));
      backward.add(row("m", values[values.length - 1 - i]));
    }
    assertThat(forward.result()).isEqualTo(backward.result());
    assertThat(forward.result().get("m")).isEqualTo(new Stats(6, -40, 99.75, 79.5));
  }

  @Test
  void repeatedEqualValuesAreEachCounted() {
    RollupAggregator agg = new RollupAggregator();
    for (int i = 0; i < 1000; i++) {
      agg.add(row("v", 0.5));
    }
    assertThat(agg.result().get("v")).isEqualTo(new Stats(1000, 0.5, 0.5, 500));
  }

  @Test
  void rowsWithoutMetricsAddNothing() {
    RollupAggregator agg = new RollupAggregator();
    assertThat(agg.result()).isEmpty();
    agg.add(Map.of());
    assertThat(agg.result()).isEmpty();
    agg.add(row("a", 1));
    agg.add(Map.of());
    assertThat(agg.result()).containsExactly(Map.entry("a", new Stats(1, 1, 1, 1)));
  }

  @Test
  void metricsComeOutSortedByName() {
    RollupAggregator agg = new RollupAggregator();
    agg.add(row("zeta", 1, "alpha", 2, "Mid", 3, "beta", 4));
    assertThat(agg.result().keySet()).containsExactly("Mid", "alpha", "beta", "zeta");
  }

  @Test
  void avgIsSumOverCount() {
    assertThat(new Stats(4, -2, 10, 6).avg()).isEqualTo(1.5);
    assertThat(new Stats(3, -9, -1, -12).avg()).isEqualTo(-4.0);
  }
}
