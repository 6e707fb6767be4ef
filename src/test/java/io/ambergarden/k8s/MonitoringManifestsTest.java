package io.ambergarden.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and the Grafana dashboard under k8s/monitoring parse, are complete, and cover the
 * faults operators must see. That every metric they use is exported is checked against a real
 * scrape by MonitoringIT.
 */
class MonitoringManifestsTest {
  @Test
  void everyRuleIsAnAlertWithAnExpressionSeverityAndSummary() throws IOException {
    List<Map<String, Object>> rules = MonitoringManifests.rules();
    assertThat(rules).isNotEmpty();
    Set<String> names = new TreeSet<>();
    for (Map<String, Object> r : rules) {
      assertThat(r.get("alert")).as("rule %s", r).isInstanceOf(String.class);
      assertThat(names.add((String) r.get("alert"))).as("alert %s twice", r.get("alert")).isTrue();
      assertThat(r.get("expr")).as("expr of %s", r.get("alert")).isInstanceOf(String.class);
      assertThat(MonitoringManifests.metricNames((String) r.get("expr"))).isNotEmpty();
      assertThat(r).containsKeys("labels", "annotations");
      assertThat(((Map<?, ?>) r.get("labels")).get("severity")).isIn("critical", "warning", "info");
      assertThat(((Map<?, ?>) r.get("annotations")).get("summary")).isInstanceOf(String.class);
      if (r.containsKey("for")) {
        assertThat(String.valueOf(r.get("for"))).matches("\\d+[smh]");
      }
      assertThat(r.keySet()).isSubsetOf("alert", "expr", "for", "labels", "annotations");
    }
  }

  @Test
  void theRulesWatchEveryFaultOperatorsMustSee() throws IOException {
    Set<String> used = new TreeSet<>();
    for (Map<String, Object> r : MonitoringManifests.rules()) {
      used.addAll(MonitoringManifests.metricNames((String) r.get("expr")));
    }
    assertThat(used)
        .contains(
            "amber_kafka_consumer_lag", // lag growing
            "amber_dead_letters_total", // dead letters
            "amber_write_failures_total", // failing writes
            "amber_health_check", // breaker open (check="writes")
            "amber_readiness_transitions_total", // readiness flapping
            "amber_counter_unknown_outcomes_total", // counter unknown outcomes
            "amber_clock_skew_seconds", // clock skew (F21)
            "jvm_gc_live_data_size_bytes"); // heap near the limit
    String breaker =
        MonitoringManifests.rules().stream()
            .map(r -> (String) r.get("expr"))
            .filter(e -> e.contains("amber_health_check"))
            .reduce("", String::concat);
    assertThat(breaker).contains("check=\"writes\"");
  }

  @Test
  void theDashboardIsGrafanaJsonWithPanelsQueryingPrometheus() throws IOException {
    JsonObject d = MonitoringManifests.dashboard();
    assertThat(d.getString("uid")).isEqualTo("amber-garden");
    assertThat(d.getInteger("schemaVersion")).isGreaterThanOrEqualTo(30);
    List<String> exprs = MonitoringManifests.dashboardExpressions(d);
    assertThat(exprs).hasSizeGreaterThan(10);
    Set<Integer> ids = new TreeSet<>();
    d.getJsonArray("panels")
        .forEach(
            p -> {
              JsonObject panel = (JsonObject) p;
              assertThat(ids.add(panel.getInteger("id"))).as("panel id twice").isTrue();
              assertThat(panel.getJsonObject("gridPos").fieldNames())
                  .containsExactlyInAnyOrder("x", "y", "w", "h");
            });
    Set<String> used = new TreeSet<>();
    exprs.forEach(e -> used.addAll(MonitoringManifests.metricNames(e)));
    assertThat(used)
        .contains(
            "amber_kafka_consumer_lag",
            "amber_write_failures_total",
            "amber_health_check",
            "amber_counter_unknown_outcomes_total",
            "amber_http_shed_total",
            "jvm_memory_used_bytes");
    assertThat(MonitoringManifests.variableMetrics(d)).containsExactly("amber_ready");
  }

  @Test
  void metricNamesAreReadOutOfPromQlWithoutLabelsFunctionsOrKeywords() {
    assertThat(
            MonitoringManifests.metricNames(
                "sum by (namespace, pod) (rate(amber_x_total{check=\"writes\", pod=~\"a.*\"}[5m]))"
                    + " / on (pod) group_left (node) max without (le) (up) > 0.5 and bool 1e3"))
        .containsExactly("amber_x_total", "up");
    assertThat(
            MonitoringManifests.metricNames(
                "histogram_quantile(0.99, sum by (le) (rate(a_bucket{ns=~\"$namespace\"}"
                    + "[$__rate_interval])))"))
        .containsExactly("a_bucket");
    assertThat(
            MonitoringManifests.metricNames("label_replace(b, \"dst\", \"$1\", \"src\", \"(.*)\")"))
        .containsExactly("b");
  }

  @Test
  void aScrapeComparisonFlagsANameTheServiceDoesNotExport() {
    String scrape =
        "# HELP amber_ready x\n# TYPE amber_ready gauge\namber_ready 1.0\n"
            + "amber_dead_letters_total 0.0\n"
            + "amber_write_latency_seconds_bucket{kind=\"detail\",le=\"0.001\"} 3.0\n";
    Set<String> exported = MonitoringManifests.exportedNames(scrape);
    assertThat(exported)
        .containsExactlyInAnyOrder(
            "amber_ready", "amber_dead_letters_total", "amber_write_latency_seconds_bucket");
    Set<String> used = MonitoringManifests.metricNames("increase(amber_dead_letter_total[5m])");
    used.removeAll(exported);
    assertThat(used).as("a typo in a rule is caught").containsExactly("amber_dead_letter_total");
  }
}
