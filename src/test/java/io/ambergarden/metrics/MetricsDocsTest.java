package io.ambergarden.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every meter the service registers is named in the metrics list of docs/operations/monitoring.md.
 */
class MetricsDocsTest {
  private static final Pattern METER =
      Pattern.compile(
          "(?:Counter|Gauge|Timer|DistributionSummary)\\.builder\\(\\s*\"(amber\\.[a-z.]+)\"");

  static Set<String> registeredMeters() throws IOException {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = METER.matcher(Files.readString(f));
        while (m.find()) {
          names.add(m.group(1).replace('.', '_'));
        }
      }
    }
    return names;
  }

  @Test
  void theMonitoringPageNamesEveryRegisteredMeter() throws IOException {
    String monitoring = Files.readString(Path.of("docs/operations/monitoring.md"));
    Set<String> meters = registeredMeters();
    assertThat(meters).as("meters found in the code").hasSizeGreaterThan(10);
    assertThat(meters.stream().filter(name -> !monitoring.contains("`" + name)).toList())
        .as("meters the metrics list does not name")
        .isEmpty();
  }
}
