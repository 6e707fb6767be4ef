package io.ambergarden.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Line charts of {@link TimeSeries} with plain Java2D: panels stacked over one shared time axis.
 */
final class Plot {
  static final Color BACKGROUND = Color.WHITE;
  private static final Color[] PALETTE = {
    new Color(0x1f77b4),
    new Color(0xff7f0e),
    new Color(0x2ca02c),
    new Color(0xd62728),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0xe377c2),
    new Color(0x7f7f7f),
    new Color(0xbcbd22),
    new Color(0x17becf)
  };
  private static final int LEFT = 90;
  private static final int RIGHT = 30;
  private static final int TOP = 62;
  private static final int BOTTOM = 55;
  private static final int GAP = 50;

  record Panel(String title, String yLabel, List<TimeSeries> series) {}

  private Plot() {}

  static BufferedImage render(
      String title, String xLabel, List<Panel> panels, int width, int height) {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(BACKGROUND);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(title, LEFT, 24);
      double maxX =
          Math.max(
              1,
              panels.stream()
                  .flatMap(p -> p.series().stream())
                  .flatMap(s -> s.points().stream())
                  .mapToDouble(TimeSeries.Point::seconds)
                  .max()
                  .orElse(1));
      int panelHeight =
          (height - TOP - BOTTOM - GAP * (panels.size() - 1)) / Math.max(1, panels.size());
      int colour = 0;
      for (int i = 0; i < panels.size(); i++) {
        int y0 = TOP + i * (panelHeight + GAP);
        drawPanel(g, panels.get(i), LEFT, y0, width - LEFT - RIGHT, panelHeight, maxX, colour);
        colour += panels.get(i).series().size();
      }
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.setColor(Color.BLACK);
      FontMetrics fm = g.getFontMetrics();
      g.drawString(xLabel, LEFT + (width - LEFT - RIGHT - fm.stringWidth(xLabel)) / 2, height - 12);
    } finally {
      g.dispose();
    }
    return image;
  }

  static void writePng(BufferedImage image, Path file) throws IOException {
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("no PNG writer available");
    }
  }

  /**
   * A 1, 2 or 5 times a power of ten step that divides {@code range} into about {@code ticks}
   * parts.
   */
  static double niceStep(double range, int ticks) {
    if (!(range > 0)) {
      return 1;
    }
    double raw = range / ticks;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double fraction = raw / magnitude;
    double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
    return nice * magnitude;
  }

  /** Tick label without a useless ".0", with thousands grouped. */
  static String tickLabel(double value) {
    return value == Math.rint(value)
        ? String.format("%,d", (long) value)
        : String.format("%,.1f", value);
  }

  private static void drawPanel(
      Graphics2D g, Panel panel, int x0, int y0, int w, int h, double maxX, int colour) {
    double maxY =
        panel.series().stream()
            .flatMap(s -> s.points().stream())
            .mapToDouble(TimeSeries.Point::value)
            .max()
            .orElse(0);
    double yStep = niceStep(maxY > 0 ? maxY : 1, 5);
    double yTop = Math.max(yStep, Math.ceil(maxY * 1.05 / yStep) * yStep);
    double xStep = niceStep(maxX, 10);
    double xRight = Math.ceil(maxX / xStep) * xStep;

    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    FontMetrics fm = g.getFontMetrics();
    for (double v = 0; v <= yTop + yStep / 2; v += yStep) {
      int y = y0 + h - (int) Math.round(v / yTop * h);
      g.setColor(new Color(0xe6e6e6));
      g.drawLine(x0, y, x0 + w, y);
      g.setColor(Color.DARK_GRAY);
      String label = tickLabel(v);
      g.drawString(label, x0 - 6 - fm.stringWidth(label), y + fm.getAscent() / 2 - 1);
    }
    for (double v = 0; v <= xRight + xStep / 2; v += xStep) {
      int x = x0 + (int) Math.round(v / xRight * w);
      g.setColor(Color.DARK_GRAY);
      g.drawLine(x, y0 + h, x, y0 + h + 4);
      String label = tickLabel(v);
      g.drawString(label, x - fm.stringWidth(label) / 2, y0 + h + 5 + fm.getAscent());
    }
    g.setColor(Color.BLACK);
    g.drawRect(x0, y0, w, h);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
    g.drawString(panel.title(), x0, y0 - 6);
    drawVerticalLabel(g, panel.yLabel(), 18, y0 + h / 2);

    int legendRow = 0;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    int legendWidth =
        34
            + panel.series().stream()
                .mapToInt(s -> g.getFontMetrics().stringWidth(s.name()))
                .max()
                .orElse(0);
    for (TimeSeries s : panel.series()) {
      Color c = PALETTE[colour++ % PALETTE.length];
      List<TimeSeries.Point> points = s.points();
      g.setColor(c);
      g.setStroke(new BasicStroke(2f));
      Path2D line = new Path2D.Double();
      for (int i = 0; i < points.size(); i++) {
        double px = x0 + points.get(i).seconds() / xRight * w;
        double py = y0 + h - points.get(i).value() / yTop * h;
        if (i == 0) {
          line.moveTo(px, py);
        } else {
          line.lineTo(px, py);
        }
        g.fillOval((int) px - 2, (int) py - 2, 5, 5);
      }
      g.draw(line);
      g.setStroke(new BasicStroke(1f));
      int ly = y0 + 14 + legendRow++ * 15;
      int lx = x0 + w - legendWidth;
      g.setColor(new Color(255, 255, 255, 220));
      g.fillRect(lx - 4, ly - 11, legendWidth, 15);
      g.setColor(c);
      g.fillRect(lx, ly - 6, 18, 4);
      g.setColor(Color.BLACK);
      g.drawString(s.name(), lx + 24, ly);
    }
    if (panel.series().stream().allMatch(s -> s.points().isEmpty())) {
      g.setColor(Color.GRAY);
      g.drawString("no data", x0 + w / 2 - 20, y0 + h / 2);
    }
  }

  private static void drawVerticalLabel(Graphics2D g, String text, int x, int centreY) {
    AffineTransform saved = g.getTransform();
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.setColor(Color.BLACK);
    g.rotate(-Math.PI / 2, x, centreY);
    g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, centreY);
    g.setTransform(saved);
  }
}
