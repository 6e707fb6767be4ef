package io.ambergarden.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.List;

/**
 * The lowest value each read-latency target could take on this box, whatever the storage does: a
 * read does all the work of the probe's no-storage request ({@link
 * ReadLatencyProbe#NO_STORAGE_PATH}) and more, through the same client, server and event loops in
 * the same windows, so its p99 at a load is at least that request's p99 there. A target's floor is
 * that p99 over the read's own p99 at 0%; a floor above the goal shows the goal out of reach at
 * that load on this machine, even for a read served from memory.
 */
final class LatencyFloors {
  private LatencyFloors() {}

  /** One read-latency ratio target: its floor in this run, and its goal. */
  record Floor(String target, double floor, double goal) {
    /** The floor alone misses the goal; a NaN floor (not measured) shows nothing. */
    boolean unreachable() {
      return !Double.isNaN(floor) && floor > goal;
    }

    JsonObject toJson() {
      return new JsonObject()
          .put("target", target)
          .put("floor", Double.isNaN(floor) ? null : floor)
          .put("goal", goal)
          .put("unreachable", unreachable());
    }
  }

  /** The floors of the read targets ({@link SteadyTargets.ReadTarget}), from the run's levels. */
  static List<Floor> of(List<SteadyLoadPhase.Step> steps) {
    SteadyLoadPhase.Step idle = SteadyTargets.step(steps, 0);
    return Arrays.stream(SteadyTargets.ReadTarget.values())
        .map(
            r ->
                new Floor(
                    r.title,
                    noStorageP99(SteadyTargets.step(steps, r.percent)) / r.p99(idle),
                    r.goal))
        .toList();
  }

  static JsonArray json(List<Floor> floors) {
    JsonArray out = new JsonArray();
    floors.forEach(f -> out.add(f.toJson()));
    return out;
  }

  private static double noStorageP99(SteadyLoadPhase.Step s) {
    return s == null ? Double.NaN : s.latencies().noStorageP99();
  }
}
