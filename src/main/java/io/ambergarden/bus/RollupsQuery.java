package io.ambergarden.bus;

import java.util.List;
import java.util.Map;

/** A device's exact hourly aggregates per metric in [from, to), oldest hour first. */
public final class RollupsQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.rollups", Request.class, Reply.class);

  public record Request(String deviceId, long from, long to) {}

  public record Aggregate(long count, double min, double max, double avg) {}

  /** One hour's aggregates, by metric name (in name order). */
  public record Hour(long hour, Map<String, Aggregate> metrics) {}

  public record Reply(String deviceId, long from, long to, List<Hour> items) {
    public Reply {
      items = List.copyOf(items);
    }
  }

  private RollupsQuery() {}
}
