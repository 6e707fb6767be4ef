package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotTest {
  @TempDir Path dir;

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  @Test
  void plotIsAValidPngOfTheRequestedSizeWithSomethingDrawn() throws IOException {
    TimeSeries throughput = new TimeSeries("(a) raw driver ceiling");
    TimeSeries latency = new TimeSeries("(e) p99 GET /devices/{id}/latest");
    for (int t = 1; t <= 30; t++) {
      throughput.add(t, 4000 + 100 * (t % 5));
      latency.add(t, 3 + t % 3);
    }
    Path png = dir.resolve("plot.png");

    Plot.writePng(
        Plot.render(
            "bench",
            "time (s)",
            List.of(
                new Plot.Panel("throughput", "events/s", List.of(throughput)),
                new Plot.Panel("latency", "ms", List.of(latency))),
            800,
            600),
        png);

    byte[] bytes = Files.readAllBytes(png);
    assertThat(bytes).startsWith(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
    BufferedImage read = ImageIO.read(png.toFile());
    assertThat(read.getWidth()).isEqualTo(800);
    assertThat(read.getHeight()).isEqualTo(600);
    assertThat(nonBackgroundPixels(read)).isGreaterThan(1000);
  }

  @Test
  void plotWithoutAnyPointsStillRendersAxes() {
    BufferedImage image =
        Plot.render(
            "bench",
            "time (s)",
            List.of(new Plot.Panel("latency", "ms", List.of(new TimeSeries("empty")))),
            400,
            300);

    assertThat(image.getWidth()).isEqualTo(400);
    assertThat(nonBackgroundPixels(image)).isGreaterThan(0);
  }

  @Test
  void tickStepsAreOneTwoOrFiveTimesAPowerOfTen() {
    assertThat(Plot.niceStep(100, 10)).isEqualTo(10);
    assertThat(Plot.niceStep(27_000, 5)).isEqualTo(10_000);
    assertThat(Plot.niceStep(7, 5)).isEqualTo(2);
    assertThat(Plot.niceStep(0.9, 5)).isEqualTo(0.2, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(Plot.niceStep(0, 5)).isEqualTo(1);
  }

  @Test
  void tickLabelsGroupThousandsAndDropAUselessFraction() {
    assertThat(Plot.tickLabel(25_000)).isEqualTo(String.format("%,d", 25_000));
    assertThat(Plot.tickLabel(0.5)).isEqualTo(String.format("%,.1f", 0.5));
  }

  private static long nonBackgroundPixels(BufferedImage image) {
    int background = Plot.BACKGROUND.getRGB();
    long count = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        if (image.getRGB(x, y) != background) {
          count++;
        }
      }
    }
    return count;
  }
}
