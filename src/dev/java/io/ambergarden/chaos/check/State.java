package io.ambergarden.chaos.check;

import java.util.List;
import java.util.Map;

/**
 * What was read back after the run, with no judgement: every table the checker compares, read
 * through CQL at consistency ALL (so every replica answered), and what the public API served.
 * {@link StateReader} fills it from the servers; tests build it by hand.
 *
 * @param eventsByDevice every row of {@code events_by_device}
 * @param eventsByType every row of {@code events_by_type}: keys only (device id, ts, event id,
 *     type), the other fields null, as the slim index holds them
 * @param latest {@code latest_by_device} by device id
 * @param abnormal every row of {@code abnormal_devices_by_hour}
 * @param fleet every row of {@code fleet_index}
 * @param devicesByHour every row of {@code devices_by_hour}
 * @param rollups every row of {@code rollups_by_device}
 * @param deviceExact every row of {@code device_exact_counts}
 * @param statusExact {@code status_exact_by_hour} summed over shards per (hour, dimension, value)
 * @param api what the API served
 * @param settledAt epoch millis by which every write attempt was over (consumer lag 0, workload
 *     stopped): counters whose countedThrough passed it must hold every acknowledged event
 * @param reconciledBefore epoch millis: every hour that ended before it must be reconciled by now
 */
public record State(
    List<Row> eventsByDevice,
    List<Row> eventsByType,
    Map<String, Row> latest,
    List<AbnormalRow> abnormal,
    List<FleetRow> fleet,
    List<HourRow> devicesByHour,
    List<RollupRow> rollups,
    List<ExactRow> deviceExact,
    List<DimensionRow> statusExact,
    Api api,
    long settledAt,
    long reconciledBefore) {

  /** An event as a table row or an API item holds it. {@code payload} is JSON text or null. */
  public record Row(
      String deviceId,
      long ts,
      String eventId,
      String deviceType,
      String status,
      Integer code,
      Map<String, Double> metrics,
      Map<String, String> tags,
      String payload) {
    public Row {
      metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
      tags = tags == null ? Map.of() : Map.copyOf(tags);
    }
  }

  public record AbnormalRow(long hour, int code, String deviceId, long lastTs, String status) {}

  public record FleetRow(String facet, String deviceId, long ts) {}

  public record HourRow(long hour, String deviceId, long lastTs) {}

  public record RollupRow(
      String deviceId, long hour, String metric, long count, double min, double max, double sum) {}

  /** {@code name} is {@code status:<status>} or {@code none}. */
  public record ExactRow(String deviceId, long hour, String name, long events) {}

  /** {@code dimension} is all, code, status or type; {@code value} '' for all. */
  public record DimensionRow(long hour, String dimension, String value, long events) {}

  /** {@code GET /api/v1/devices/{id}/counters}. */
  public record DeviceCounters(
      long total, Map<String, Long> byStatus, Long exactThrough, Long countedThrough) {}

  /** One day of {@code GET /api/v1/stats/status}, with the answer's countedThrough. */
  public record DayStats(
      String day,
      long total,
      Map<String, Long> byCode,
      Map<String, Long> byStatus,
      Map<String, Long> byType,
      long exactThrough,
      Long countedThrough) {}

  /** One item of {@code GET /api/v1/devices} (the fleet view). */
  public record FleetItem(
      String deviceId,
      String deviceType,
      long lastSeen,
      String status,
      Integer code,
      Map<String, Double> metrics,
      boolean abnormal) {}

  /** A served hourly rollup of one metric. */
  public record ServedRollup(
      String deviceId, long hour, long count, double min, double max, double avg) {}

  /**
   * What the API served: every device's events (all pages), latest, counters and rollups, the day
   * stats of the run's days, the fleet list, every type's events (all pages), and the device ids of
   * filtered fleet lists by their filter ({@code type=T}, {@code status=S}, {@code abnormal=B}).
   */
  public record Api(
      Map<String, List<Row>> events,
      Map<String, Row> latest,
      Map<String, DeviceCounters> counters,
      List<DayStats> days,
      List<ServedRollup> rollups,
      List<FleetItem> fleet,
      Map<String, List<Row>> byType,
      Map<String, List<String>> fleetFiltered) {}
}
