package io.ambergarden.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Issue 31's targets, computed from a run's own figures: the steady-load levels ({@link
 * SteadyLoadPhase}), the service's GC pause p99 under ingest, the full rate (b) against the raw
 * ceiling (a'), and, for the two cost rows, the committed baseline run's 50% level (its {@code
 * steady} array). The levels are shares of each run's own (b), so a faster run's 50% level runs at
 * a higher rate, where an event costs less; the two cost rows are therefore also given at the
 * baseline's own 50% rate, interpolated between this run's levels. A figure the run lacks is NaN,
 * and its target is not met.
 */
final class SteadyTargets {
  private SteadyTargets() {}

  static List<Target> of(
      List<SteadyLoadPhase.Step> steps,
      JsonArray baselineSteady,
      double gcPauseP99Millis,
      double fullRateAgainstRaw) {
    SteadyLoadPhase.Step idle = step(steps, 0);
    SteadyLoadPhase.Step quarter = step(steps, 25);
    SteadyLoadPhase.Step half = step(steps, 50);
    List<Target> out = new ArrayList<>();
    out.add(
        Target.atMost(
            "whole-system CPU per 1000 events at 50%, against the baseline",
            ratio(systemCost(half), baselineCost(baselineSteady, null)), 0.55));
    out.add(
        Target.atMost(
            "Cassandra CPU per 1000 events at 50%, against the baseline",
            ratio(processCost(half, "Cassandra"), baselineCost(baselineSteady, "Cassandra")), 0.5));
    double rate = baselineRate(baselineSteady);
    out.add(
        Target.atMost(
            "whole-system CPU per 1000 events at the baseline's 50% rate, against the baseline",
            ratio(
                atRate(steps, rate, SteadyTargets::systemCost), baselineCost(baselineSteady, null)),
            0.55));
    out.add(
        Target.atMost(
            "Cassandra CPU per 1000 events at the baseline's 50% rate, against the baseline",
            ratio(
                atRate(steps, rate, s -> processCost(s, "Cassandra")),
                baselineCost(baselineSteady, "Cassandra")),
            0.5));
    for (ReadTarget r : ReadTarget.values()) {
      out.add(Target.atMost(r.title, ratio(r.p99(step(steps, r.percent)), r.p99(idle)), r.goal));
    }
    out.add(
        Target.atMost(
            "ingest-to-live p99 at 25%, ms",
            quarter == null ? Double.NaN : quarter.latencies().liveP99(), 50));
    out.add(
        Target.atMost(
            "ingest-to-live p99 at 50%, ms",
            half == null ? Double.NaN : half.latencies().liveP99(), 100));
    out.add(Target.atMost("service GC pause p99 under ingest, ms", gcPauseP99Millis, 10));
    out.add(Target.atLeast("full rate (b) against (a')", fullRateAgainstRaw, 0.85));
    return out;
  }

  /** The read-latency targets: a read's p99 at a load against its own p99 at 0%. */
  enum ReadTarget {
    PAGE_AT_25("page p99 at 25% against 0%", 25, true, 2),
    PAGE_AT_50("page p99 at 50% against 0%", 50, true, 3),
    LATEST_AT_50("latest p99 at 50% against 0%", 50, false, 1.5);

    final String title;
    final int percent;
    private final boolean page;
    final double goal;

    ReadTarget(String title, int percent, boolean page, double goal) {
      this.title = title;
      this.percent = percent;
      this.page = page;
      this.goal = goal;
    }

    /** This target's read p99 at a level; NaN without the level. */
    double p99(SteadyLoadPhase.Step s) {
      return s == null ? Double.NaN : page ? s.latencies().pageP99() : s.latencies().latestP99();
    }
  }

  static JsonArray json(List<Target> targets) {
    JsonArray out = new JsonArray();
    targets.forEach(t -> out.add(t.toJson()));
    return out;
  }

  /** The level at {@code percent}, or null if the run has none. */
  static SteadyLoadPhase.Step step(List<SteadyLoadPhase.Step> steps, int percent) {
    return steps.stream().filter(s -> s.percent() == percent).findFirst().orElse(null);
  }

  private static double systemCost(SteadyLoadPhase.Step s) {
    return s == null || s.cost() == null ? Double.NaN : s.cost().systemMillisPer1000();
  }

  private static double processCost(SteadyLoadPhase.Step s, String process) {
    return s == null || s.cost() == null
        ? Double.NaN
        : s.cost().millisPer1000().getOrDefault(process, Double.NaN);
  }

  /**
   * A cost at {@code rate} events/s, linear between the two loaded levels around it; NaN outside
   * the run's levels (no extrapolation).
   */
  static double atRate(
      List<SteadyLoadPhase.Step> steps, double rate, ToDoubleFunction<SteadyLoadPhase.Step> cost) {
    List<SteadyLoadPhase.Step> loaded =
        steps.stream()
            .filter(s -> s.ratePerSecond() > 0 && s.cost() != null)
            .sorted(Comparator.comparingDouble(SteadyLoadPhase.Step::ratePerSecond))
            .toList();
    for (int i = 0; i + 1 < loaded.size(); i++) {
      SteadyLoadPhase.Step lo = loaded.get(i);
      SteadyLoadPhase.Step hi = loaded.get(i + 1);
      if (rate >= lo.ratePerSecond() && rate <= hi.ratePerSecond()) {
        double share = (rate - lo.ratePerSecond()) / (hi.ratePerSecond() - lo.ratePerSecond());
        return cost.applyAsDouble(lo) + share * (cost.applyAsDouble(hi) - cost.applyAsDouble(lo));
      }
    }
    return Double.NaN;
  }

  /** The baseline's 50% rate, events/s. */
  private static double baselineRate(JsonArray baselineSteady) {
    JsonObject half = baselineHalf(baselineSteady);
    return half == null ? Double.NaN : half.getDouble("eventsPerSecond", Double.NaN);
  }

  /** The baseline's 50% cost: the system figure, or one process's when {@code process} is set. */
  private static double baselineCost(JsonArray baselineSteady, String process) {
    JsonObject half = baselineHalf(baselineSteady);
    JsonObject cost = half == null ? null : half.getJsonObject("cost");
    if (cost == null) {
      return Double.NaN;
    }
    Double v =
        process == null
            ? cost.getDouble("systemMillisPer1000")
            : cost.getJsonObject("millisPer1000", new JsonObject()).getDouble(process);
    return v == null ? Double.NaN : v;
  }

  /** The baseline's 50% level, or null without a baseline or such a level. */
  private static JsonObject baselineHalf(JsonArray baselineSteady) {
    if (baselineSteady == null) {
      return null;
    }
    for (int i = 0; i < baselineSteady.size(); i++) {
      JsonObject row = baselineSteady.getJsonObject(i);
      if (row.getInteger("percent", -1) == 50) {
        return row;
      }
    }
    return null;
  }

  private static double ratio(double a, double b) {
    return a / b;
  }
}
