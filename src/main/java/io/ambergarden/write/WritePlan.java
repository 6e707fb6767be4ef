package io.ambergarden.write;

import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Groups a request's events into the rows of each table. Detail and by-type rows are grouped per
 * partition (an unlogged batch never spans partitions); latest state and abnormal rows keep only
 * the newest event per key, which is what last-write-wins by event time would keep anyway.
 */
public final class WritePlan {
  public record DetailKey(String deviceId, long bucket) {}

  public record TypeKey(String deviceType, long bucket, int salt) {}

  public record AbnormalKey(long hour, int salt, int code, String deviceId) {}

  /** Newest first, the same order as the clustering columns. */
  static final Comparator<Event> NEWEST =
      Comparator.comparingLong(Event::ts).thenComparing(Event::eventId).reversed();

  private final Map<DetailKey, List<Event>> detail = new LinkedHashMap<>();
  private final Map<TypeKey, List<Event>> byType = new LinkedHashMap<>();
  private final Map<String, Event> latest = new LinkedHashMap<>();
  private final Map<AbnormalKey, Event> abnormal = new LinkedHashMap<>();

  public WritePlan(
      List<Event> events,
      TimeBuckets buckets,
      AmberConfig.Events eventRules,
      int typeSalts,
      int abnormalSalts) {
    for (Event e : events) {
      long bucket = buckets.bucketOf(e.ts());
      detail.computeIfAbsent(new DetailKey(e.deviceId(), bucket), k -> new ArrayList<>()).add(e);
      if (e.deviceType() != null) {
        byType
            .computeIfAbsent(
                new TypeKey(e.deviceType(), bucket, RowKeys.salt(e.deviceId(), typeSalts)),
                k -> new ArrayList<>())
            .add(e);
      }
      latest.merge(e.deviceId(), e, WritePlan::newer);
      if (eventRules.isAbnormal(e.code(), e.status())) {
        AbnormalKey key =
            new AbnormalKey(
                TimeBuckets.hourOf(e.ts()),
                RowKeys.salt(e.deviceId(), abnormalSalts),
                e.code() == null ? -1 : e.code(),
                e.deviceId());
        abnormal.merge(key, e, WritePlan::newer);
      }
    }
  }

  /**
   * The event Cassandra keeps under last-write-wins, whose write timestamp comes from {@link
   * RowKeys}.
   */
  static Event newer(Event a, Event b) {
    return RowKeys.eventTimeWriteTimestamp(a.ts(), a.eventId())
            >= RowKeys.eventTimeWriteTimestamp(b.ts(), b.eventId())
        ? a
        : b;
  }

  /** Detail rows per partition, in chunks of at most {@code maxRows}. */
  public Map<DetailKey, List<List<Event>>> detailChunks(int maxRows) {
    Map<DetailKey, List<List<Event>>> out = new LinkedHashMap<>();
    detail.forEach((k, v) -> out.put(k, chunks(v, maxRows)));
    return out;
  }

  public Map<TypeKey, List<List<Event>>> typeChunks(int maxRows) {
    Map<TypeKey, List<List<Event>>> out = new LinkedHashMap<>();
    byType.forEach((k, v) -> out.put(k, chunks(v, maxRows)));
    return out;
  }

  public Iterable<DetailKey> detailPartitions() {
    return detail.keySet();
  }

  public Map<String, Event> latest() {
    return latest;
  }

  public Map<AbnormalKey, Event> abnormal() {
    return abnormal;
  }

  private static List<List<Event>> chunks(List<Event> rows, int maxRows) {
    List<List<Event>> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i += maxRows) {
      out.add(rows.subList(i, Math.min(rows.size(), i + maxRows)));
    }
    return out;
  }
}
