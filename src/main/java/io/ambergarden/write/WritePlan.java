package io.ambergarden.write;

import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Groups a request's events into the rows of each table. Detail and by-type rows are grouped per
 * partition (an unlogged batch never spans partitions); latest state and abnormal rows keep only
 * the newest event per key, which is what last-write-wins by event time would keep anyway. A {@link
 * Placement} names each event's detail partition (a hot device's slice, see {@code DetailSlices}).
 */
public final class WritePlan {
  /** A detail partition: {@code bucket} is the partition key (a slice's key for hot devices). */
  public record DetailKey(String deviceId, long bucket) {}

  /** A (device, bucket) or (type, bucket) that holds data, for the bucket indexes. */
  public record BucketKey(String name, long bucket) {}

  /** Where an event's detail row goes, and its salt inside a slice (0 outside one). */
  public interface Placement {
    long partitionOf(Event e, long bucket);

    int saltOf(Event e);
  }

  /** Every event in its bucket's own partition: no hot-device slices. */
  public static final Placement COLD =
      new Placement() {
        @Override
        public long partitionOf(Event e, long bucket) {
          return bucket;
        }

        @Override
        public int saltOf(Event e) {
          return 0;
        }
      };

  public record TypeKey(String deviceType, long bucket, int salt) {}

  /** A by-type index row: the event and the key of the detail partition that holds it. */
  public record TypeRow(Event event, long detailBucket) {}

  public record AbnormalKey(long hour, int salt, int code, String deviceId) {}

  /** Newest first, the same order as the clustering columns. */
  static final Comparator<Event> NEWEST =
      Comparator.comparingLong(Event::ts).thenComparing(Event::eventId).reversed();

  private final Map<DetailKey, List<Event>> detail = new LinkedHashMap<>();
  private final Map<TypeKey, List<TypeRow>> byType = new LinkedHashMap<>();
  private final Map<String, Event> latest = new LinkedHashMap<>();
  private final Map<AbnormalKey, Event> abnormal = new LinkedHashMap<>();
  private final Set<BucketKey> deviceBuckets = new LinkedHashSet<>();
  private final Set<BucketKey> typeBuckets = new LinkedHashSet<>();

  public WritePlan(
      List<Event> events,
      TimeBuckets buckets,
      AmberConfig.Events eventRules,
      int typeSalts,
      int abnormalSalts) {
    this(events, buckets, eventRules, typeSalts, abnormalSalts, COLD);
  }

  public WritePlan(
      List<Event> events,
      TimeBuckets buckets,
      AmberConfig.Events eventRules,
      int typeSalts,
      int abnormalSalts,
      Placement placement) {
    for (Event e : events) {
      long bucket = buckets.bucketOf(e.ts());
      deviceBuckets.add(new BucketKey(e.deviceId(), bucket));
      // placed once: placing also counts the event against its slice
      long partition = placement.partitionOf(e, bucket);
      detail.computeIfAbsent(new DetailKey(e.deviceId(), partition), k -> new ArrayList<>()).add(e);
      if (e.deviceType() != null) {
        typeBuckets.add(new BucketKey(e.deviceType(), bucket));
        // a hot device's salt also spreads its rows over the type's salt partitions
        int salt =
            Math.floorMod(RowKeys.salt(e.deviceId(), typeSalts) + placement.saltOf(e), typeSalts);
        byType
            .computeIfAbsent(new TypeKey(e.deviceType(), bucket, salt), k -> new ArrayList<>())
            .add(new TypeRow(e, partition));
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

  /** By-type index rows per partition, in chunks of at most {@code maxRows}. */
  public Map<TypeKey, List<List<TypeRow>>> typeChunks(int maxRows) {
    Map<TypeKey, List<List<TypeRow>>> out = new LinkedHashMap<>();
    byType.forEach((k, v) -> out.put(k, chunks(v, maxRows)));
    return out;
  }

  /** The (device, bucket) pairs of the request, for buckets_by_device. */
  public Set<BucketKey> deviceBuckets() {
    return deviceBuckets;
  }

  /** The (type, bucket) pairs of the request, for buckets_by_type. */
  public Set<BucketKey> typeBuckets() {
    return typeBuckets;
  }

  public Map<String, Event> latest() {
    return latest;
  }

  public Map<AbnormalKey, Event> abnormal() {
    return abnormal;
  }

  private static <T> List<List<T>> chunks(List<T> rows, int maxRows) {
    List<List<T>> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i += maxRows) {
      out.add(rows.subList(i, Math.min(rows.size(), i + maxRows)));
    }
    return out;
  }
}
