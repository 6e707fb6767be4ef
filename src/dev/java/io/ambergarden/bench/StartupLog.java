package io.ambergarden.bench;

import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a service start spent its time, read from its log: the seconds from the process start to
 * the first line that matches each marker (the log's text format begins with HH:mm:ss.SSS).
 */
public final class StartupLog {
  /** The startup steps the service logs, in the order they happen. */
  public static final Map<String, Pattern> MARKERS = markers();

  private StartupLog() {}

  private static Map<String, Pattern> markers() {
    Map<String, Pattern> m = new LinkedHashMap<>();
    m.put("first log", Pattern.compile("."));
    m.put("HTTP up", Pattern.compile("Amber Garden is up"));
    m.put("partitions assigned", Pattern.compile(" assigned \\["));
    return m;
  }

  /**
   * Seconds from {@code start} to the first line matching each marker; markers never matched are
   * absent. Lines without a leading time are skipped; a time before {@code start} counts from the
   * next midnight.
   */
  public static Map<String, Double> offsets(
      List<String> lines, LocalTime start, Map<String, Pattern> markers) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : lines) {
      if (line.length() < 13 || line.charAt(12) != ' ') {
        continue;
      }
      LocalTime t;
      try {
        t = LocalTime.parse(line.substring(0, 12));
      } catch (DateTimeParseException e) {
        continue;
      }
      double s = Duration.between(start, t).toMillis() / 1000.0;
      if (s < -1) {
        s += 86_400;
      }
      String text = line.substring(13);
      for (Map.Entry<String, Pattern> m : markers.entrySet()) {
        if (!out.containsKey(m.getKey()) && m.getValue().matcher(text).find()) {
          out.put(m.getKey(), s);
        }
      }
    }
    return out;
  }
}
