package io.ambergarden.bench;

import io.ambergarden.metrics.PrometheusText;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;

/**
 * The service's own read latency per stage (amber_read_latency_seconds) over one window, from a
 * scrape at its start and one at its end: where a read measured by (e) spent its time.
 */
final class ReadStages {
  private static final String METER = "amber_read_latency_seconds";

  /** Label, Prometheus labels: the two reads (e) sends at their two stages, then one CQL read. */
  private static final String[][] SERIES = {
    {"page http", "read=\"device-events\",stage=\"http\""},
    {"page query", "read=\"device-events\",stage=\"query\""},
    {"latest http", "read=\"device-latest\",stage=\"http\""},
    {"latest query", "read=\"device-latest\",stage=\"query\""},
    {"one CQL read", "read=\"cql\",stage=\"cassandra\""},
  };

  private final String before;

  ReadStages(String scrapeAtStart) {
    this.before = scrapeAtStart;
  }

  /** One report line: p50 / p99 per stage over the window; empty when the service had no meter. */
  String line(String condition, String scrapeAtEnd) {
    List<String> parts = new ArrayList<>();
    for (String[] s : SERIES) {
      NavigableMap<Double, Double> from = PrometheusText.buckets(before, METER, s[1]);
      NavigableMap<Double, Double> to = PrometheusText.buckets(scrapeAtEnd, METER, s[1]);
      if (to.isEmpty()) {
        continue;
      }
      double n = to.lastEntry().getValue() - from.getOrDefault(to.lastKey(), 0.0);
      parts.add(
          String.format(
              "%s %.1f / %.1f (%,.0f)",
              s[0],
              1000 * PrometheusText.quantileBetween(from, to, 0.50),
              1000 * PrometheusText.quantileBetween(from, to, 0.99),
              n));
    }
    return parts.isEmpty()
        ? ""
        : "service-side read stages, "
            + condition
            + ", p50 / p99 ms (count): "
            + String.join("; ", parts)
            + " (http: route to reply; query: inside the query verticle; the client's figure less"
            + " http is the HTTP server and the network, http less query the bus hop and"
            + " event-loop waits)";
  }
}
