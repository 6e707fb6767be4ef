package io.ambergarden.chaos;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** report.json and report.md of one chaos run: settings and seed, schedule, outcomes, verdicts. */
final class ChaosReport {
  private ChaosReport() {}

  static JsonObject json(
      ChaosSettings settings,
      Instant started,
      List<NemesisPlan.Step> plan,
      List<Nemesis.Outcome> outcomes,
      Map<String, Object> workload,
      ChaosFindings findings) {
    JsonArray faults = new JsonArray();
    for (Nemesis.Outcome o : outcomes) {
      faults.add(
          new JsonObject()
              .put("index", o.step().index())
              .put("shape", o.step().shape().name())
              .put(
                  "kind",
                  String.join(" + ", o.step().faults().stream().map(f -> f.kind().name()).toList()))
              .put("target", String.join("; ", o.targets()))
              .put("probes", String.join("; ", o.probes()))
              .put("holdMs", o.step().held().toMillis())
              .put("directAcksDuringHold", o.httpDuringHold().directAcks())
              .put("injectedAt", Instant.ofEpochMilli(o.injectedAt()).toString())
              .put("secondsIntoRun", (o.injectedAt() - started.toEpochMilli()) / 1000)
              .put("healMs", o.healedAt() - Math.max(o.healStartedAt(), o.injectedAt()))
              .put("recoveryMs", o.recoveryMillis())
              .put("ackedDuringHold", o.ackedDuringHold())
              .put("httpP99BeforeMs", finite(o.httpBefore().p99Millis()))
              .put("httpP99DuringHoldMs", finite(o.httpDuringHold().p99Millis()))
              .put("http5xxUntilRecovered", o.httpUntilRecovered().serverErrors())
              .put("httpTriesUntilRecovered", o.httpUntilRecovered().tries())
              .put("error", o.error()));
    }
    JsonArray verdicts = new JsonArray();
    for (ChaosFindings.Invariant i : findings.invariants()) {
      verdicts.add(
          new JsonObject()
              .put("name", i.name())
              .put("observed", i.observed())
              .put("holds", i.holds()));
    }
    return new JsonObject()
        .put("started", started.toString())
        .put("seed", settings.seed())
        .put(
            "replay",
            "mvn -Pchaos -Damber.chaos.seed="
                + settings.seed()
                + " -Damber.chaos.duration="
                + settings.duration().toSeconds()
                + "s")
        .put("settings", new JsonObject(settings.asMap()))
        .put("schedule", new JsonArray(plan.stream().map(NemesisPlan.Step::toString).toList()))
        .put("faults", faults)
        .put("workload", new JsonObject(workload))
        .put("invariants", verdicts)
        .put("figures", JsonObject.mapFrom(findings.figures()))
        .put("passed", findings.allHold());
  }

  static String markdown(JsonObject r) {
    StringBuilder md = new StringBuilder();
    md.append("# Chaos run ")
        .append(r.getString("started"))
        .append("\n\n")
        .append(r.getBoolean("passed") ? "**PASSED**" : "**FAILED**")
        .append(": every invariant below ")
        .append(r.getBoolean("passed") ? "holds" : "must hold")
        .append(".\n\nSeed `")
        .append(r.getLong("seed"))
        .append("`; replay: `")
        .append(r.getString("replay"))
        .append("`\n\n## Invariants\n\n| invariant | observed | holds |\n|---|---|---|\n");
    for (Object o : r.getJsonArray("invariants")) {
      JsonObject i = (JsonObject) o;
      md.append("| ")
          .append(i.getString("name"))
          .append(" | ")
          .append(i.getString("observed"))
          .append(" | ")
          .append(i.getBoolean("holds") ? "yes" : "**NO**")
          .append(" |\n");
    }
    md.append(
        "\n## Faults\n\n| # | shape | fault | target | at s | held ms | heal ms | recovered after heal, ms | acked during hold | HTTP p99 before / during hold, ms | HTTP 5xx until recovered | probes / error |\n|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Object o : r.getJsonArray("faults")) {
      JsonObject f = (JsonObject) o;
      md.append("| ")
          .append(f.getInteger("index"))
          .append(" | ")
          .append(f.getString("shape"))
          .append(" | ")
          .append(f.getString("kind"))
          .append(" | ")
          .append(f.getString("target"))
          .append(" | ")
          .append(f.getLong("secondsIntoRun"))
          .append(" | ")
          .append(f.getLong("holdMs"))
          .append(" | ")
          .append(f.getLong("healMs"))
          .append(" | ")
          .append(f.getLong("recoveryMs"))
          .append(" | ")
          .append(f.getLong("ackedDuringHold"))
          .append(" | ")
          .append(ms(f.getDouble("httpP99BeforeMs")))
          .append(" / ")
          .append(ms(f.getDouble("httpP99DuringHoldMs")))
          .append(" | ")
          .append(f.getInteger("http5xxUntilRecovered"))
          .append(" of ")
          .append(f.getInteger("httpTriesUntilRecovered"))
          .append(" | ")
          .append(f.getString("probes"))
          .append(f.getString("error") == null ? "" : " " + f.getString("error"))
          .append(" |\n");
    }
    md.append("\n## Figures\n\n");
    r.getJsonObject("figures")
        .forEach(
            e -> md.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n'));
    md.append("\n## Workload\n\n");
    r.getJsonObject("workload")
        .forEach(
            e -> md.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n'));
    md.append("\n## Settings\n\n");
    r.getJsonObject("settings")
        .forEach(
            e ->
                md.append("- `")
                    .append(e.getKey())
                    .append("` = ")
                    .append(e.getValue())
                    .append('\n'));
    md.append("\n## Schedule drawn from the seed (run in order until the time was up)\n\n");
    r.getJsonArray("schedule").forEach(s -> md.append("- ").append(s).append('\n'));
    return md.toString();
  }

  /** JSON has no NaN: a window without a 202 has no latency. */
  private static Double finite(double v) {
    return Double.isNaN(v) ? null : v;
  }

  private static String ms(Double v) {
    return v == null || v.isNaN() ? "-" : Long.toString(Math.round(v));
  }

  static void write(Path dir, JsonObject report) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.json"), report.encodePrettily());
    Files.writeString(dir.resolve("report.md"), markdown(report));
  }
}
