package io.ambergarden.bus;

import io.vertx.core.json.JsonObject;
import java.time.LocalDate;
import java.util.Map;
import java.util.TreeMap;

/** Event counts of one UTC day by code and by status, summed over the sharded counters. */
public final class StatusStatsQuery {
  public static final String ADDRESS = "amber.query.status-stats";

  public record Request(LocalDate day) {}

  /** {@code byCode} is keyed by the code as text, as in the JSON answer. */
  public record Reply(
      LocalDate day, int shards, long total, Map<String, Long> byCode, Map<String, Long> byStatus) {
    public Reply {
      byCode = Map.copyOf(byCode);
      byStatus = Map.copyOf(byStatus);
    }

    public JsonObject toJson() {
      return new JsonObject()
          .put("day", day.toString())
          .put("shards", shards)
          .put("total", total)
          .put("byCode", new JsonObject(new TreeMap<String, Object>(byCode)))
          .put("byStatus", new JsonObject(new TreeMap<String, Object>(byStatus)));
    }
  }

  private StatusStatsQuery() {}
}
