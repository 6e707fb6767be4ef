package io.ambergarden.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class HourCountsTest {
  @Test
  void eachEventCountsOnceUnderItsStatusNameAndInEveryDimensionItHas() {
    HourCounts c = new HourCounts();
    c.add("ok", 200, "charger");
    c.add("ok", 200, "charger");
    c.add("fault", 500, null);
    c.add(null, null, "meter");

    assertThat(c.byName())
        .containsExactlyEntriesOf(
            new TreeMap<>(Map.of("none", 1L, "status:fault", 1L, "status:ok", 2L)));
    assertThat(c.byDimension())
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    new HourCounts.Dimension("all", ""), 4L,
                    new HourCounts.Dimension("code", "200"), 2L,
                    new HourCounts.Dimension("code", "500"), 1L,
                    new HourCounts.Dimension("status", "fault"), 1L,
                    new HourCounts.Dimension("status", "ok"), 2L,
                    new HourCounts.Dimension("type", "charger"), 2L,
                    new HourCounts.Dimension("type", "meter"), 1L)));
  }

  @Test
  void theNamesAddUpToTheAllDimension() {
    HourCounts c = new HourCounts();
    for (int i = 0; i < 37; i++) {
      c.add(i % 3 == 0 ? null : "s" + (i % 4), i % 5 == 0 ? null : i, null);
    }
    long names = c.byName().values().stream().mapToLong(Long::longValue).sum();
    assertThat(names)
        .isEqualTo(37)
        .isEqualTo(c.byDimension().get(new HourCounts.Dimension("all", "")));
  }

  @Test
  void aShardsSumAddsDevicesDimensionByDimension() {
    Map<HourCounts.Dimension, Long> sum = new TreeMap<>();
    HourCounts.addTo(sum, new HourCounts.Dimension("status", "ok"), 3);
    HourCounts.addTo(sum, new HourCounts.Dimension("status", "ok"), 4);
    HourCounts.addTo(sum, new HourCounts.Dimension("code", "1"), 1);
    assertThat(sum)
        .containsEntry(new HourCounts.Dimension("status", "ok"), 7L)
        .containsEntry(new HourCounts.Dimension("code", "1"), 1L)
        .hasSize(2);
  }
}
