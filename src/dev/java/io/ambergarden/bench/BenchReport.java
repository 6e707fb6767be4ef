package io.ambergarden.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results of one run as markdown and JSON: environment, throughput table, ratios, read
 * latencies.
 */
final class BenchReport {
  static final String PLOT_FILE = "throughput-latency.png";

  record Environment(
      Instant startedAt,
      int cores,
      String javaVersion,
      String javaVm,
      String cassandraVersion,
      String cassandraMemtable,
      String kafkaVersion,
      Map<String, Integer> settings,
      Map<String, String> overrides) {}

  /** One row of the table; NaN marks a figure that does not apply. */
  record Measurement(
      String id, String label, double eventsPerSecond, double rowsPerSecond, String note) {}

  record Ratio(String label, double value) {}

  /** CPU per phase and process, and the memory series sampled per second (MiB). */
  record Resources(List<String> processes, List<CpuLedger.Phase> cpu, List<TimeSeries> memory) {
    static final Resources NONE = new Resources(List.of(), List.of(), List.of());
  }

  private final Environment env;
  private final List<Measurement> measurements;
  private final List<Ratio> ratios;
  private final List<ReadLatencyProbe.Summary> reads;
  private final List<String> notes;
  private final List<TimeSeries> series;
  private final Resources resources;

  BenchReport(
      Environment env,
      List<Measurement> measurements,
      List<Ratio> ratios,
      List<ReadLatencyProbe.Summary> reads,
      List<String> notes,
      List<TimeSeries> series,
      Resources resources) {
    this.resources = resources;
    this.env = env;
    this.measurements = List.copyOf(measurements);
    this.ratios = List.copyOf(ratios);
    this.reads = List.copyOf(reads);
    this.notes = List.copyOf(notes);
    this.series = List.copyOf(series);
  }

  /** numerator / denominator, NaN when either is missing or the denominator is not positive. */
  static Ratio ratio(String label, double numerator, double denominator) {
    boolean defined = !Double.isNaN(numerator) && denominator > 0;
    return new Ratio(label, defined ? numerator / denominator : Double.NaN);
  }

  /** Whole units with thousands grouped; "-" for a figure that does not apply. */
  static String number(double v) {
    return Double.isNaN(v) ? "-" : String.format("%,.0f", v);
  }

  static String ratioText(double v) {
    return Double.isNaN(v) ? "n/a" : String.format("%.2f", v);
  }

  static String millis(double v) {
    return Double.isNaN(v) ? "-" : String.format("%.1f", v);
  }

  String markdown() {
    StringBuilder md = new StringBuilder("# Amber Garden ingest benchmark\n\n");
    md.append(
        String.format(
            "%s, %d cores, Java %s (%s), Cassandra %s (memtables: %s), Kafka %s%n%n",
            startedAt(),
            env.cores(),
            env.javaVersion(),
            env.javaVm(),
            env.cassandraVersion(),
            env.cassandraMemtable(),
            env.kafkaVersion()));
    md.append("| setting | value |\n|---|---:|\n");
    env.settings().forEach((k, v) -> md.append(String.format("| `%s` | %d |%n", k, v)));
    env.overrides().forEach((k, v) -> md.append(String.format("| `%s` | %s |%n", k, v)));
    md.append("\n## Throughput\n\n");
    md.append(throughputTable());
    md.append("\n## Ratios\n\n");
    md.append(ratioTable());
    md.append("\n## Reads (e)\n\n");
    md.append(readTable());
    md.append("\n## CPU per phase\n\n");
    md.append(cpuTable());
    md.append("\n## Memory (MiB, sampled per second)\n\n");
    md.append(memoryTable());
    if (!notes.isEmpty()) {
      md.append("\n## Notes\n\n");
      notes.forEach(n -> md.append("- ").append(n).append('\n'));
    }
    md.append("\n![throughput and read latency per second](").append(PLOT_FILE).append(")\n");
    return md.toString();
  }

  String throughputTable() {
    StringBuilder t =
        new StringBuilder("| measurement | events/s | rows/s | notes |\n|---|---:|---:|---|\n");
    for (Measurement m : measurements) {
      t.append(
          String.format(
              "| %s | %s | %s | %s |%n",
              m.label(), number(m.eventsPerSecond()), number(m.rowsPerSecond()), m.note()));
    }
    return t.toString();
  }

  String ratioTable() {
    StringBuilder t = new StringBuilder("| ratio | value |\n|---|---:|\n");
    ratios.forEach(r -> t.append(String.format("| %s | %s |%n", r.label(), ratioText(r.value()))));
    return t.toString();
  }

  String readTable() {
    if (reads.isEmpty()) {
      return "not measured (amber.bench.read-rate=0)\n";
    }
    StringBuilder t =
        new StringBuilder(
            "| while | endpoint | count | p50 ms | p99 ms | max ms | 404 | errors | skipped |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ReadLatencyProbe.Summary r : reads) {
      t.append(
          String.format(
              "| %s | `%s` | %,d | %s | %s | %s | %,d | %,d | %,d |%n",
              r.condition(),
              r.endpoint(),
              r.count(),
              millis(r.p50Millis()),
              millis(r.p99Millis()),
              millis(r.maxMillis()),
              r.notFound(),
              r.errors(),
              r.skipped()));
    }
    return t.toString();
  }

  String cpuTable() {
    if (resources.cpu().isEmpty()) {
      return "not measured\n";
    }
    StringBuilder head = new StringBuilder("| phase | events | wall s | events/s |");
    StringBuilder rule = new StringBuilder("|---|---:|---:|---:|");
    for (String p : resources.processes()) {
      head.append(" ").append(p).append(" cores | ").append(p).append(" CPU ms / 1000 events |");
      rule.append("---:|---:|");
    }
    List<String> counters =
        resources.cpu().stream().flatMap(ph -> ph.counts().keySet().stream()).distinct().toList();
    head.append(" all cores |");
    rule.append("---:|");
    for (String c : counters) {
      head.append(" ").append(c).append(" |");
      rule.append("---:|");
    }
    StringBuilder t = new StringBuilder(head).append("\n").append(rule).append("\n");
    for (CpuLedger.Phase ph : resources.cpu()) {
      t.append(
          String.format(
              "| %s | %,d | %.1f | %s |",
              ph.name(), ph.events(), ph.wallSeconds(), number(ph.events() / ph.wallSeconds())));
      for (String p : resources.processes()) {
        t.append(
            String.format(
                " %s | %s |", twoDecimals(ph.cores(p)), number(ph.millisPer1000Events(p))));
      }
      t.append(String.format(" %s |", twoDecimals(ph.totalCores())));
      for (String c : counters) {
        Long n = ph.counts().get(c);
        t.append(n == null ? " - |" : String.format(" %,d |", n));
      }
      t.append('\n');
    }
    return t.toString();
  }

  String memoryTable() {
    if (resources.memory().isEmpty()) {
      return "not measured\n";
    }
    StringBuilder t =
        new StringBuilder("| series | first | min | max | last |\n|---|---:|---:|---:|---:|\n");
    for (TimeSeries s : resources.memory()) {
      DoubleSummaryStatistics stats =
          s.points().stream().mapToDouble(TimeSeries.Point::value).summaryStatistics();
      double first = s.points().isEmpty() ? Double.NaN : s.points().get(0).value();
      double last =
          s.points().isEmpty() ? Double.NaN : s.points().get(s.points().size() - 1).value();
      t.append(
          String.format(
              "| %s | %s | %s | %s | %s |%n",
              s.name(),
              number(first),
              number(stats.getCount() == 0 ? Double.NaN : stats.getMin()),
              number(stats.getCount() == 0 ? Double.NaN : stats.getMax()),
              number(last)));
    }
    return t.toString();
  }

  static String twoDecimals(double v) {
    return Double.isNaN(v) ? "-" : String.format("%.2f", v);
  }

  JsonObject json() {
    JsonObject settings = new JsonObject();
    env.settings().forEach(settings::put);
    JsonArray rows = new JsonArray();
    measurements.forEach(
        m ->
            rows.add(
                new JsonObject()
                    .put("id", m.id())
                    .put("label", m.label())
                    .put("eventsPerSecond", finiteOrNull(m.eventsPerSecond()))
                    .put("rowsPerSecond", finiteOrNull(m.rowsPerSecond()))
                    .put("note", m.note())));
    JsonArray ratioRows = new JsonArray();
    ratios.forEach(
        r ->
            ratioRows.add(
                new JsonObject().put("label", r.label()).put("value", finiteOrNull(r.value()))));
    JsonArray readRows = new JsonArray();
    reads.forEach(
        r ->
            readRows.add(
                new JsonObject()
                    .put("condition", r.condition())
                    .put("endpoint", r.endpoint())
                    .put("count", r.count())
                    .put("p50Millis", r.p50Millis())
                    .put("p99Millis", r.p99Millis())
                    .put("maxMillis", r.maxMillis())
                    .put("notFound", r.notFound())
                    .put("errors", r.errors())
                    .put("skipped", r.skipped())));
    JsonArray cpuRows = new JsonArray();
    for (CpuLedger.Phase ph : resources.cpu()) {
      JsonObject perProcess = new JsonObject();
      ph.cpuSeconds().forEach((p, v) -> perProcess.put(p, finiteOrNull(v)));
      cpuRows.add(
          new JsonObject()
              .put("phase", ph.name())
              .put("events", ph.events())
              .put("wallSeconds", ph.wallSeconds())
              .put("cpuSeconds", perProcess)
              .put("counts", new JsonObject(new LinkedHashMap<String, Object>(ph.counts()))));
    }
    JsonArray seriesRows = new JsonArray();
    List<TimeSeries> all = new ArrayList<>(series);
    all.addAll(resources.memory());
    for (TimeSeries s : all) {
      JsonArray points = new JsonArray();
      s.points()
          .forEach(
              p -> points.add(new JsonArray().add(round(p.seconds(), 2)).add(round(p.value(), 2))));
      seriesRows.add(new JsonObject().put("name", s.name()).put("points", points));
    }
    return new JsonObject()
        .put("startedAt", startedAt())
        .put(
            "environment",
            new JsonObject()
                .put("cores", env.cores())
                .put("java", env.javaVersion())
                .put("javaVm", env.javaVm())
                .put("cassandra", env.cassandraVersion())
                .put("cassandraMemtable", env.cassandraMemtable())
                .put("kafka", env.kafkaVersion()))
        .put("settings", settings)
        .put("overrides", new JsonObject(new LinkedHashMap<String, Object>(env.overrides())))
        .put("measurements", rows)
        .put("ratios", ratioRows)
        .put("reads", readRows)
        .put("cpu", cpuRows)
        .put("notes", new JsonArray(notes))
        .put("perSecond", seriesRows);
  }

  private String startedAt() {
    return env.startedAt().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static Double finiteOrNull(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static double round(double v, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(v * scale) / scale;
  }
}
