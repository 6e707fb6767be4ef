package io.ambergarden.bus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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

    public JsonObject toJson() {
      JsonArray out = new JsonArray();
      for (Hour h : items) {
        JsonObject metrics = new JsonObject();
        h.metrics()
            .forEach(
                (name, a) ->
                    metrics.put(
                        name,
                        new JsonObject()
                            .put("count", a.count())
                            .put("min", a.min())
                            .put("max", a.max())
                            .put("avg", a.avg())));
        out.add(new JsonObject().put("hour", h.hour()).put("metrics", metrics));
      }
      return new JsonObject()
          .put("deviceId", deviceId)
          .put("from", from)
          .put("to", to)
          .put("items", out);
    }
  }

  private RollupsQuery() {}
}
