package io.ambergarden.metrics;

/** Reads values out of a Prometheus text scrape, for tests and the benchmark. */
public final class PrometheusText {
  private PrometheusText() {}

  /** The sum of every sample of the meter, over all label sets; 0 when absent. */
  public static double sum(String scrape, String name) {
    return sum(scrape, name, "");
  }

  /**
   * As {@link #sum(String, String)}, over the samples whose line contains {@code labelText}, such
   * as area="heap".
   */
  public static double sum(String scrape, String name, String labelText) {
    double sum = 0;
    for (String line : scrape.split("\n")) {
      if ((line.startsWith(name + " ") || line.startsWith(name + "{"))
          && line.contains(labelText)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
