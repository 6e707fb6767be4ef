package io.ambergarden.bench;

import io.vertx.core.json.JsonObject;

/**
 * One row of a run's targets: a figure the harness computed from the run itself, its goal, and
 * whether it met it. A NaN value (a figure the run could not measure) never meets its goal.
 */
record Target(String name, double value, double goal, boolean met) {

  /** Met when {@code value <= goal}. */
  static Target atMost(String name, double value, double goal) {
    return new Target(name, value, goal, !Double.isNaN(value) && value <= goal);
  }

  /** Met when {@code value >= goal}. */
  static Target atLeast(String name, double value, double goal) {
    return new Target(name, value, goal, !Double.isNaN(value) && value >= goal);
  }

  /** {@code {"name","value","goal","met"}}; a NaN value is null. */
  JsonObject toJson() {
    return new JsonObject()
        .put("name", name)
        .put("value", Double.isNaN(value) ? null : value)
        .put("goal", goal)
        .put("met", met);
  }
}
