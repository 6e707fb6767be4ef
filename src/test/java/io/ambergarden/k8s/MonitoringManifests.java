package io.ambergarden.k8s;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Reads the monitoring manifests (k8s/monitoring): the alert rules and the Grafana dashboard, and
 * the metric names their PromQL uses. Shared by the manifest test and the IT that checks the names
 * against a live /metrics scrape.
 */
public final class MonitoringManifests {
  public static final Path RULES = Path.of("k8s/monitoring/prometheus-rules.yaml");
  public static final Path DASHBOARD = Path.of("k8s/monitoring/grafana-dashboard.json");

  private static final Set<String> KEYWORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "and",
          "or",
          "unless",
          "bool",
          "offset",
          "inf",
          "nan");
  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'");
  private static final Pattern LABEL_LIST =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.$:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,");

  private MonitoringManifests() {}

  @SuppressWarnings("unchecked")
  public static Map<String, Object> yaml(Path file) throws IOException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    return (Map<String, Object>)
        new Yaml(new SafeConstructor(options)).load(Files.readString(file, StandardCharsets.UTF_8));
  }

  /** Every rule of every group of the PrometheusRule. */
  @SuppressWarnings("unchecked")
  public static List<Map<String, Object>> rules() throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    Map<String, Object> spec = (Map<String, Object>) yaml(RULES).get("spec");
    for (Object g : (List<Object>) spec.get("groups")) {
      for (Object r : (List<Object>) ((Map<String, Object>) g).get("rules")) {
        out.add((Map<String, Object>) r);
      }
    }
    return out;
  }

  /** The Grafana dashboard JSON. */
  public static JsonObject dashboard() throws IOException {
    return new JsonObject(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
  }

  /** Every PromQL expression of the dashboard's panels (rows included). */
  public static List<String> dashboardExpressions(JsonObject dashboard) {
    List<String> out = new ArrayList<>();
    collect(dashboard.getJsonArray("panels", new JsonArray()), out);
    return out;
  }

  private static void collect(JsonArray panels, List<String> out) {
    for (Object p : panels) {
      JsonObject panel = (JsonObject) p;
      for (Object t : panel.getJsonArray("targets", new JsonArray())) {
        String expr = ((JsonObject) t).getString("expr");
        if (expr != null) {
          out.add(expr);
        }
      }
      collect(panel.getJsonArray("panels", new JsonArray()), out);
    }
  }

  /** Metric names of the dashboard's variable queries (label_values(metric, label)). */
  public static Set<String> variableMetrics(JsonObject dashboard) {
    Set<String> out = new TreeSet<>();
    JsonObject templating = dashboard.getJsonObject("templating", new JsonObject());
    for (Object v : templating.getJsonArray("list", new JsonArray())) {
      Object q = ((JsonObject) v).getValue("query");
      if (q instanceof String s) {
        Matcher m = LABEL_VALUES.matcher(s);
        while (m.find()) {
          out.add(m.group(1));
        }
      }
    }
    return out;
  }

  /**
   * The metric names a PromQL expression reads: identifiers that are not functions, keywords, label
   * names (inside braces or by/without/on lists), durations or Grafana variables.
   */
  public static Set<String> metricNames(String promql) {
    String s = STRING.matcher(promql).replaceAll("\"\"");
    s = s.replaceAll("\\{[^}]*\\}", " ");
    s = s.replaceAll("\\[[^\\]]*\\]", " ");
    s = LABEL_LIST.matcher(s).replaceAll(" ");
    s = s.replaceAll("\\$\\{?\\w+\\}?", " ");
    Set<String> out = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      String name = m.group(1);
      boolean call = m.group(2) != null;
      if (!call && !KEYWORDS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        out.add(name);
      }
    }
    return out;
  }

  /** Every metric name the rules and the dashboard use. */
  public static Set<String> usedMetricNames() throws IOException {
    Set<String> out = new TreeSet<>();
    for (Map<String, Object> r : rules()) {
      out.addAll(metricNames(String.valueOf(r.get("expr"))));
    }
    JsonObject dashboard = dashboard();
    for (String e : dashboardExpressions(dashboard)) {
      out.addAll(metricNames(e));
    }
    out.addAll(variableMetrics(dashboard));
    return out;
  }

  /** The sample names of a Prometheus text scrape (e.g. x_total, y_bucket, z). */
  public static Set<String> exportedNames(String scrape) {
    Set<String> out = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = line.indexOf('{');
      if (end < 0) {
        end = line.indexOf(' ');
      }
      if (end > 0) {
        out.add(line.substring(0, end));
      }
    }
    return out;
  }
}
