package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.RealServers;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The clock check reads the real Cassandra node's clock: on one machine the two clocks are the
 * same, so the exported offset is small and no skew is reported.
 */
@ExtendWith(RealServers.class)
@Timeout(180)
class ClockCheckIT {
  private static final Pattern OFFSET =
      Pattern.compile(
          "^amber_clock_offset_seconds\\{node=\"([^\"]+)\",?\\} (\\S+)$", Pattern.MULTILINE);

  @Test
  void theCassandraNodesClockOffsetAppearsAtMetricsAndIsSmallOnAnUnskewedMachine()
      throws Exception {
    try (TestService s = TestService.start(Map.of("clock.check-interval", "1s"))) {
      Matcher m =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> offsetLine(s.get("/metrics").body()), Optional::isPresent)
              .orElseThrow();
      String node = m.group(1);
      double offset = Double.parseDouble(m.group(2));
      String metrics = s.get("/metrics").body();
      assertThat(RealServers.cassandraContactPoint().split(",")).contains(node);
      assertThat(Math.abs(offset)).as("offset of %s in seconds", node).isLessThan(1.0);
      String ofNode = "node=\"" + node + "\"";
      assertThat(value(metrics, "amber_clock_offset_uncertainty_seconds", ofNode))
          .isBetween(0.0, 1.0);
      assertThat(value(metrics, "amber_clock_skew_seconds", "")).isLessThan(1.0);
      assertThat(value(metrics, "amber_clock_checks_failed_total", ofNode)).isZero();
    }
  }

  /** The first node's offset line, once it holds a number (NaN until a check succeeded). */
  private static Optional<Matcher> offsetLine(String metrics) {
    Matcher m = OFFSET.matcher(metrics);
    return m.find() && !m.group(2).equals("NaN") ? Optional.of(m) : Optional.empty();
  }

  /** The value of the series {@code name} whose labels contain {@code labels} ("" for any). */
  private static double value(String metrics, String name, String labels) {
    for (String line : metrics.split("\n")) {
      boolean named = line.startsWith(name + "{") || line.startsWith(name + " ");
      if (named && line.contains(labels)) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError(name + " " + labels + " is not in /metrics");
  }
}
