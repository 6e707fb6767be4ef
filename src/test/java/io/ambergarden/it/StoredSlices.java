package io.ambergarden.it;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.cassandra.DetailSlices;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The slices a hot device's bucket was split into, as stored in {@code device_slices}, for tests
 * that read detail rows straight from Cassandra and must merge every partition as readers do.
 */
final class StoredSlices {
  private StoredSlices() {}

  /** The read of one (device, bucket)'s slices, oldest first. */
  static SimpleStatement query(String keyspace, String device, long bucket) {
    return SimpleStatement.newInstance(
        "SELECT slice_start, salts FROM "
            + keyspace
            + ".device_slices WHERE device_id = ? AND bucket = ?",
        device,
        Instant.ofEpochMilli(bucket));
  }

  /** The slices in the rows of {@link #query}; empty for a cold device. */
  static List<DetailSlices.Slice> of(Iterable<Row> rows) {
    List<DetailSlices.Slice> slices = new ArrayList<>();
    for (Row r : rows) {
      slices.add(
          new DetailSlices.Slice(r.getInstant("slice_start").toEpochMilli(), r.getInt("salts")));
    }
    return slices;
  }
}
