package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BenchReportTest {
  private static final BenchSettings SETTINGS =
      new BenchSettings(1_000, 10, 1_000, 64, 500, 18_080, 60, 50, 1_000, 30, 10, 60);
  private static final BenchReport.Environment ENV =
      new BenchReport.Environment(
          Instant.parse("2025-01-02T03:04:05Z"),
          2,
          "17.0.15",
          "OpenJDK 64-Bit Server VM",
          "5.0.6",
          "64MiB",
          "4.1.2",
          Map.of("amber.bench.events", 1_000),
          Map.of("amber.localrt.cassandra.request-threads", "16"));

  @Test
  void ratioDividesAndIsUndefinedWithoutAPositiveDenominator() {
    assertThat(BenchReport.ratio("x", 3_000, 1_500).value()).isEqualTo(2.0);
    assertThat(BenchReport.ratio("x", 3_000, 0).value()).isNaN();
    assertThat(BenchReport.ratio("x", Double.NaN, 10).value()).isNaN();
    assertThat(BenchReport.ratio("x", 3_000, Double.NaN).value()).isNaN();
  }

  @Test
  void figuresAreFormattedWithDashesAndNaForWhatDoesNotApply() {
    assertThat(BenchReport.number(12_345.6)).isEqualTo(String.format("%,d", 12_346));
    assertThat(BenchReport.number(Double.NaN)).isEqualTo("-");
    assertThat(BenchReport.ratioText(0.456)).isEqualTo(String.format("%.2f", 0.46));
    assertThat(BenchReport.ratioText(Double.NaN)).isEqualTo("n/a");
  }

  @Test
  void reportHasOneRowPerMeasurementAndTheFourServiceRatios() {
    BenchReport report =
        IngestBench.report(SETTINGS, ENV, figures(), List.of(), BenchReport.Resources.NONE);

    String table = report.throughputTable();
    assertThat(table.lines()).hasSize(2 + 7);
    assertThat(table)
        .contains(
            "| (a) raw driver ceiling, 64 in flight | "
                + BenchReport.number(1_000)
                + " | "
                + BenchReport.number(4_000)
                + " |");
    assertThat(table)
        .contains("| (b) service HTTP ingest (to Kafka) | " + BenchReport.number(2_000) + " | - |");
    assertThat(report.ratioTable())
        .contains(
            "| (b) service / (a) raw ceiling, rows/s | " + BenchReport.ratioText(0.5) + " |",
            "| (b) service / (c) naive consumer, events/s | " + BenchReport.ratioText(2.0) + " |",
            "| (b) service / (a') raw driver with the writer's batching, events/s | "
                + BenchReport.ratioText(0.4)
                + " |",
            "| (b) service / (d) ThingsBoard-style schema, events/s | "
                + BenchReport.ratioText(0.625)
                + " |");
  }

  @Test
  void markdownAndJsonCarryEnvironmentSettingsReadsAndTheLiveLatencyNote() {
    BenchReport report =
        IngestBench.report(
            SETTINGS,
            ENV,
            figures(),
            List.of(new TimeSeries("(a) raw driver ceiling")),
            BenchReport.Resources.NONE);

    String md = report.markdown();
    assertThat(md)
        .contains(
            "2 cores",
            "Java 17.0.15",
            "Cassandra 5.0.6",
            "Kafka 4.1.2",
            "`amber.bench.events`",
            "| `amber.localrt.cassandra.request-threads` | 16 |",
            "`GET /devices/{id}/latest`",
            "(f) ingest-to-live WebSocket latency: not measured.",
            BenchReport.PLOT_FILE);
    JsonObject json = report.json();
    assertThat(json.getJsonObject("environment").getInteger("cores")).isEqualTo(2);
    assertThat(json.getJsonObject("overrides").getString("amber.localrt.cassandra.request-threads"))
        .isEqualTo("16");
    assertThat(json.getJsonArray("measurements")).hasSize(7);
    assertThat(json.getJsonArray("measurements").getJsonObject(3).getValue("rowsPerSecond"))
        .isNull();
    assertThat(json.getJsonArray("ratios").getJsonObject(2).getDouble("value")).isEqualTo(2.0);
    assertThat(json.getJsonArray("reads").getJsonObject(0).getDouble("p99Millis")).isEqualTo(9.5);
    assertThat(new JsonObject(json.encode())).isEqualTo(json);
  }

  @Test
  void readsSectionSaysSoWhenReadsWereOff() {
    IngestBench.Figures f = figures();
    IngestBench.Figures noReads =
        new IngestBench.Figures(
            f.raw(),
            f.grouped(),
            f.rawRowsPerRun(),
            f.serviceEventsPerSecond(),
            f.serviceRowsPerSecond(),
            f.httpEventsPerSecond(),
            f.naive(),
            f.tsKv(),
            f.produceEventsPerSecond(),
            List.of(),
            Optional.empty(),
            List.of());

    assertThat(
            IngestBench.report(SETTINGS, ENV, noReads, List.of(), BenchReport.Resources.NONE)
                .readTable())
        .startsWith("not measured");
  }

  @Test
  void liveLatencyFromTheHookReplacesTheNotMeasuredNote() {
    IngestBench.Figures f = figures();
    IngestBench.Figures withLive =
        new IngestBench.Figures(
            f.raw(),
            f.grouped(),
            f.rawRowsPerRun(),
            f.serviceEventsPerSecond(),
            f.serviceRowsPerSecond(),
            f.httpEventsPerSecond(),
            f.naive(),
            f.tsKv(),
            f.produceEventsPerSecond(),
            f.reads(),
            Optional.of("p50 4 ms, p99 9 ms"),
            List.of("settled after 3 s"));

    assertThat(
            IngestBench.report(SETTINGS, ENV, withLive, List.of(), BenchReport.Resources.NONE)
                .markdown())
        .contains("(f) ingest-to-live WebSocket latency: p50 4 ms, p99 9 ms", "- settled after 3 s")
        .doesNotContain("does not exist yet");
  }

  @Test
  void cpuTableHasAColumnPerCounterWithADashWhereAPhaseHasNone() {
    BenchReport.Resources resources =
        new BenchReport.Resources(
            List.of("service"),
            List.of(
                new CpuLedger.Phase("(a) raw", 1_000, 1.0, Map.of("service", Double.NaN), Map.of()),
                new CpuLedger.Phase(
                    "(b) service",
                    1_000,
                    1.0,
                    Map.of("service", 0.5),
                    Map.of("recomputes", 1234L))),
            List.of());

    BenchReport report = IngestBench.report(SETTINGS, ENV, figures(), List.of(), resources);

    assertThat(report.cpuTable())
        .contains("| all cores | recomputes |")
        .contains(BenchReport.twoDecimals(0.5) + " | " + String.format("%,d", 1234) + " |\n")
        .containsPattern("\\| \\(a\\) raw \\|.* - \\|\n");
    assertThat(report.json().getJsonArray("cpu").getJsonObject(1).getJsonObject("counts"))
        .isEqualTo(new io.vertx.core.json.JsonObject().put("recomputes", 1234L));
  }

  @Test
  void cpuAndMemoryTablesShowEachProcessAndTheSeriesExtremes() {
    TimeSeries heap = new TimeSeries("heap after GC");
    heap.add(1, 300);
    heap.add(2, 500);
    heap.add(3, 400);
    BenchReport.Resources resources =
        new BenchReport.Resources(
            List.of("Cassandra", "bench JVM"),
            List.of(
                new CpuLedger.Phase(
                    "(a) raw", 10_000, 2.0, Map.of("Cassandra", 3.0, "bench JVM", 0.5))),
            List.of(heap));

    BenchReport report = IngestBench.report(SETTINGS, ENV, figures(), List.of(), resources);

    assertThat(report.cpuTable())
        .contains(
            "| (a) raw | "
                + String.format("%,d", 10_000)
                + " | "
                + String.format("%.1f", 2.0)
                + " | "
                + BenchReport.number(5_000)
                + " | "
                + BenchReport.twoDecimals(1.5)
                + " | "
                + BenchReport.number(300)
                + " | "
                + BenchReport.twoDecimals(0.25)
                + " | "
                + BenchReport.number(50)
                + " | "
                + BenchReport.twoDecimals(1.75)
                + " |");
    assertThat(report.memoryTable())
        .contains(
            "| heap after GC | "
                + BenchReport.number(300)
                + " | "
                + BenchReport.number(300)
                + " | "
                + BenchReport.number(500)
                + " | "
                + BenchReport.number(400)
                + " |");
    assertThat(
            report
                .json()
                .getJsonArray("cpu")
                .getJsonObject(0)
                .getJsonObject("cpuSeconds")
                .getDouble("Cassandra"))
        .isEqualTo(3.0);
    assertThat(report.markdown()).contains("## CPU per phase", "## Memory");
  }

  /**
   * raw 1,000 ev/s and 4,000 rows/s; service 500 ev/s and 2,000 rows/s; naive 250 ev/s; ts_kv 800
   * ev/s.
   */
  private static IngestBench.Figures figures() {
    return new IngestBench.Figures(
        new RawWriteLoop.Result(1_000, 4_000, 1.0),
        new RawWriteLoop.Result(1_000, 4_000, 0.8),
        4_000,
        500,
        2_000,
        2_000,
        new RawWriteLoop.Result(500, 1_000, 2.0),
        new RawWriteLoop.Result(1_000, 5_000, 1.25),
        100_000,
        List.of(
            new ReadLatencyProbe.Summary(
                "(b) at half rate", "GET /devices/{id}/latest", 100, 2.5, 9.5, 20.0, 0, 0, 0)),
        Optional.empty(),
        List.of());
  }
}
