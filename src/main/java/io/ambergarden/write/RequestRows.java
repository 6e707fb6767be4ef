package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns a {@link WritePlan} into statements: per-partition batches of detail and by-type rows, and
 * the single-partition rows (latest state, bucket indexes, fleet index, activity, abnormal) the
 * writer groups by replica. Index rows already written (per the writer's bounded memories) are
 * skipped; each is remembered once its write succeeded.
 */
final class RequestRows {
  final List<WriteRow.Batch> batches = new ArrayList<>();
  final List<WriteRow.Single> singles = new ArrayList<>();

  /** Fleet changes planned for this request; forgotten again if the request fails. */
  final List<FleetMembership.Change> fleetChanges = new ArrayList<>();

  RequestRows(
      WritePlan plan,
      RowBinder binder,
      AmberConfig config,
      Map<HotBuckets.Key, HotBuckets.State> states,
      Map<WritePlan.BucketKey, Boolean> knownTypeBuckets,
      FleetMembership fleet,
      long now) {
    int maxRows = config.writer().batchMaxRows();
    plan.detailChunks(maxRows)
        .forEach(
            (key, chunks) ->
                chunks.forEach(
                    chunk -> add("detail", chunk, e -> binder.detail(e, key.bucket(), now))));
    for (WritePlan.BucketKey key : plan.deviceBuckets()) {
      HotBuckets.State s = states.get(new HotBuckets.Key(key.name(), key.bucket()));
      if (s == null || !s.indexed) {
        singles.add(
            new WriteRow.Single(
                "bucket",
                binder.bucket(key, now),
                () -> {
                  if (s != null) {
                    s.indexed = true;
                  }
                }));
      }
    }
    for (WritePlan.BucketKey key : plan.typeBuckets()) {
      if (!knownTypeBuckets.containsKey(key)) {
        singles.add(
            new WriteRow.Single(
                "type_bucket",
                binder.typeBucket(key, now),
                () -> knownTypeBuckets.put(key, Boolean.TRUE)));
      }
    }
    for (Event e : plan.latest().values()) {
      singles.add(new WriteRow.Single("latest", binder.latest(e, now)));
      FleetMembership.Change c = fleet.plan(e, config.events().isAbnormal(e.code(), e.status()));
      if (!c.isEmpty()) {
        fleetChanges.add(c);
        c.add().forEach(f -> singles.add(new WriteRow.Single("fleet", binder.fleet(f, c, now))));
        c.remove()
            .forEach(f -> singles.add(new WriteRow.Single("fleet", binder.fleetDelete(f, c))));
        if (c.activity()) {
          singles.add(new WriteRow.Single("activity", binder.activity(c)));
        }
      }
    }
    plan.typeChunks(maxRows)
        .forEach(
            (key, chunks) ->
                chunks.forEach(chunk -> add("by_type", chunk, r -> binder.byType(r, key, now))));
    plan.abnormal()
        .forEach(
            (key, e) -> singles.add(new WriteRow.Single("abnormal", binder.abnormal(key, e, now))));
  }

  /** Rows of one partition: a batch of them when there are several, else one row for grouping. */
  private <T> void add(String kind, List<T> rows, Function<T, BoundStatement> row) {
    if (rows.size() == 1) {
      singles.add(new WriteRow.Single(kind, row.apply(rows.get(0))));
      return;
    }
    List<BatchableStatement<?>> statements = new ArrayList<>(rows.size());
    rows.forEach(e -> statements.add(row.apply(e)));
    batches.add(new WriteRow.Batch(kind, statements));
  }

  /** A bounded access-ordered map used as an LRU set of rows already written. */
  static <K> Map<K, Boolean> lruSet(int maxSize) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
        return size() > maxSize;
      }
    };
  }
}
