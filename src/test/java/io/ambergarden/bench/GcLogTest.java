package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class GcLogTest {
  static final List<String> LINES =
      List.of(
          "[2026-12-06T02:45:00.100+0000] Using G1",
          "[2026-12-06T02:45:01.234+0000] GC(3) Pause Young (Normal) (G1 Evacuation Pause)"
              + " 100M->20M(1024M) 5.123ms",
          "[2026-12-06T02:45:01.234+0000] GC(3)   Evacuate Collection Set: 3.1ms",
          "[2026-12-06T02:45:02.000+0000] GC(4) Pause Remark 310M->300M(1024M) 1.500ms",
          "[2026-12-06T02:45:03.500+0000] GC(5) Pause Mark Start 0.012ms",
          "[2026-12-06T02:45:03.600+0000] GC(5) Garbage Collection (Warmup) 100M(10%)->20M(2%)",
          "[2026-12-06T02:45:09.000+0000] GC(6) Pause Young (Normal) (G1 Evacuation Pause)"
              + " 200M->30M(1024M) 66ms");

  @Test
  void readsG1AndZgcPausesInTheWindowOnly() {
    double[] pauses =
        GcLog.pausesMillis(
            LINES, Instant.parse("2026-12-06T02:45:01Z"), Instant.parse("2026-12-06T02:45:09Z"));

    // the phase line and the concurrent cycle are not pauses; the last pause is past the window
    assertThat(pauses).containsExactly(5.123, 1.5, 0.012);
  }

  @Test
  void percentileIsTheNearestRankAndNaNWithoutPauses() {
    double[] v = {5, 1, 66, 2, 3, 4, 7, 8, 9, 10};

    assertThat(GcLog.percentile(v, 99)).isEqualTo(66);
    assertThat(GcLog.percentile(v, 50)).isEqualTo(5);
    assertThat(GcLog.percentile(new double[0], 99)).isNaN();
    assertThat(GcLog.option("target/gc.log"))
        .isEqualTo("-Xlog:gc,gc+phases:file=target/gc.log:time");
  }
}
