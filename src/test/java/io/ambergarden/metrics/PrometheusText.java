package io.ambergarden.metrics;

/** Reads values out of a Prometheus text scrape, for tests and the benchmark. */
public final class PrometheusText {
  private PrometheusText() {
  }

  /** The sum of every sample of the meter, over all label sets; 0 when absent. */
  public static double sum(String scrape, String name) {
    double sum = 0;
    for (String line : scrape.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
