package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.DetailSlices;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows of {@link QueryStatements#slicesOfDevice} (bucket, start, salts) as each bucket's slices.
 */
final class SliceRows {
  private SliceRows() {}

  /** Each bucket's slices, sorted by start, as {@link DetailSlices} expects them. */
  static Map<Long, List<DetailSlices.Slice>> byBucket(List<Row> rows) {
    Map<Long, List<DetailSlices.Slice>> slices = new HashMap<>();
    for (Row r : rows) {
      slices
          .computeIfAbsent(r.getInstant(0).toEpochMilli(), b -> new ArrayList<>())
          .add(new DetailSlices.Slice(r.getInstant(1).toEpochMilli(), r.getInt(2)));
    }
    slices.values().forEach(l -> l.sort(Comparator.comparingLong(DetailSlices.Slice::start)));
    return slices;
  }
}
