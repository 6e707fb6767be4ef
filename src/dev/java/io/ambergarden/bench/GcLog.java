package io.ambergarden.bench;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stop-the-world pauses from a JVM's unified GC log, written with {@code
 * -Xlog:gc,gc+phases:file=...:time}: G1's "Pause Young ... 5.1ms" and ZGC's or Shenandoah's "Pause
 * Mark Start 0.01ms" lines alike, each with its wall time.
 */
final class GcLog {
  /** {@code -Xlog} option that writes what this reads to {@code file}. */
  static String option(String file) {
    return "-Xlog:gc,gc+phases:file=" + file + ":time";
  }

  private static final Pattern PAUSE =
      Pattern.compile("^\\[([^\\]]+)\\].*GC\\(\\d+\\) Pause .*?(\\d+(?:\\.\\d+)?)ms\\s*$");
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

  private GcLog() {}

  /** The pauses logged from {@code from} (inclusive) to {@code to} (exclusive), in ms. */
  static double[] pausesMillis(List<String> lines, Instant from, Instant to) {
    List<Double> out = new ArrayList<>();
    for (String line : lines) {
      Matcher m = PAUSE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Instant at = OffsetDateTime.parse(m.group(1), TIME).toInstant();
      if (!at.isBefore(from) && at.isBefore(to)) {
        out.add(Double.parseDouble(m.group(2)));
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The nearest-rank percentile of {@code values}; NaN when there are none. */
  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
