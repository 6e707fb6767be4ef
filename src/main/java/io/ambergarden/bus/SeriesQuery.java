package io.ambergarden.bus;

import java.util.List;

/**
 * One metric of one device as aggregates per bucket of {@code stepMillis} (aligned on the epoch,
 * UTC) over [from, to): only buckets with events carrying the metric, oldest first.
 */
public final class SeriesQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.series", Request.class, Reply.class);

  /** A step of an hour or more is a whole number of hours; under an hour it divides an hour. */
  public record Request(String deviceId, String metric, long from, long to, long stepMillis) {}

  /** One bucket: its start, and the exact aggregates of its stored events. */
  public record Point(long t, long count, double min, double max, double avg) {}

  public record Reply(
      String deviceId, String metric, long stepMillis, long from, long to, List<Point> points) {
    public Reply {
      points = List.copyOf(points);
    }
  }

  private SeriesQuery() {}
}
