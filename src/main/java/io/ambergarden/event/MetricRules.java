package io.ambergarden.event;

import static io.ambergarden.event.EventParser.MSG_DUPLICATE_METRIC;
import static io.ambergarden.event.EventParser.MSG_FINITE;
import static io.ambergarden.event.EventParser.MSG_METRICS_TYPE;
import static io.ambergarden.event.EventParser.MSG_NUMBER;
import static io.ambergarden.event.FieldPaths.path;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;

/**
 * Metrics: the {@code metrics} object and the flat form's top-level numbers, collected into one map
 * in document order ({@code run.metrics}). Names follow the id charset, values are finite numbers,
 * a name may appear once, and the count is capped (reported once per event).
 */
final class MetricRules {

  private final EventLimits limits;
  private final String msgTooManyMetrics;

  MetricRules(EventLimits limits) {
    this.limits = limits;
    this.msgTooManyMetrics = "too many metrics: at most " + limits.maxMetrics();
  }

  /** The {@code metrics} field; null means no metrics. */
  void readObject(JsonParser p, JsonToken t, int idx, ParseRun run) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    if (t != JsonToken.START_OBJECT) {
      run.error(idx, "metrics", MSG_METRICS_TYPE);
      p.skipChildren();
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken vt = p.nextToken();
      add(p, vt, idx, name, "metrics.", run);
    }
  }

  /**
   * One metric, current token {@code vt}; {@code prefix} is {@code "metrics."} inside the object
   * and empty for a flat one, so errors name the field as the client wrote it.
   */
  void add(JsonParser p, JsonToken vt, int idx, String name, String prefix, ParseRun run)
      throws IOException {
    String nameProblem =
        FieldRules.checkId(name, limits.maxMetricNameLength(), "metric names must be ");
    if (nameProblem != null) {
      run.error(idx, path(prefix, name), nameProblem);
      p.skipChildren();
      return;
    }
    double d;
    if (vt == JsonToken.VALUE_NUMBER_INT || vt == JsonToken.VALUE_NUMBER_FLOAT) {
      d = p.getDoubleValue();
      if (!Double.isFinite(d)) {
        run.error(idx, path(prefix, name), MSG_FINITE);
        return;
      }
    } else {
      run.error(idx, path(prefix, name), MSG_NUMBER);
      p.skipChildren();
      return;
    }
    LinkedHashMap<String, Double> m = run.metrics;
    if (m == null) {
      m = new LinkedHashMap<>();
      run.metrics = m;
    } else if (m.containsKey(name)) {
      run.error(idx, path(prefix, name), MSG_DUPLICATE_METRIC);
      return;
    }
    if (m.size() >= limits.maxMetrics()) {
      if (!run.metricsOverflow) {
        run.metricsOverflow = true;
        run.error(idx, "metrics", msgTooManyMetrics);
      }
      return;
    }
    m.put(name, d);
  }
}
