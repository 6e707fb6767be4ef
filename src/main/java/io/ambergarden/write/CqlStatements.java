package io.ambergarden.write;

/**
 * All CQL of the write path. The keyspace is a validated config identifier; values are always
 * bound.
 */
public final class CqlStatements {
  private final String ks;

  public CqlStatements(String keyspace) {
    this.ks = keyspace;
  }

  public String insertDetail() {
    return "INSERT INTO "
        + ks
        + ".events_by_device (device_id, bucket, ts, event_id, device_type, status, code,"
        + " metrics, tags, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?";
  }

  public String insertBucket() {
    return "INSERT INTO " + ks + ".buckets_by_device (device_id, bucket) VALUES (?, ?) USING TTL ?";
  }

  public String upsertLatest() {
    return "INSERT INTO "
        + ks
        + ".latest_by_device (device_id, ts, event_id, device_type, status, code, metrics,"
        + " tags, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?";
  }

  /**
   * A slim index row: the event's keys, and its detail partition's bucket key when that is not the
   * bucket itself (a hot device's slice); the reader fetches the event from events_by_device.
   */
  public String insertByType() {
    return "INSERT INTO "
        + ks
        + ".events_by_type (device_type, bucket, salt, ts, device_id, event_id, detail_bucket)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?";
  }

  public String upsertAbnormal() {
    return "INSERT INTO "
        + ks
        + ".abnormal_devices_by_hour (hour, salt, code, device_id, last_ts, status)"
        + " VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?";
  }

  public String insertRollupMark() {
    return "INSERT INTO "
        + ks
        + ".rollup_marks (shard, due_bucket, hour, device_id) VALUES (?, ?, ?, ?)";
  }

  public String insertCountJournal() {
    return "INSERT INTO "
        + ks
        + ".count_journal (shard, bucket, entry_id, facts) VALUES (?, ?, ?, ?)";
  }

  public String insertDeviceReopened() {
    return "INSERT INTO "
        + ks
        + ".device_reopened_hours (device_id, hour, due_bucket) VALUES (?, ?, ?)";
  }

  public String insertShardReopened() {
    return "INSERT INTO "
        + ks
        + ".shard_reopened_hours (day, shard, hour, due_bucket) VALUES (?, ?, ?, ?)";
  }

  public String insertFleet() {
    return "INSERT INTO "
        + ks
        + ".fleet_index (facet, shard, device_id, ts) VALUES (?, ?, ?, ?)"
        + " USING TIMESTAMP ? AND TTL ?";
  }

  public String deleteFleet() {
    return "DELETE FROM "
        + ks
        + ".fleet_index USING TIMESTAMP ? WHERE facet = ? AND shard = ? AND device_id = ?";
  }

  public String insertActivity() {
    return "INSERT INTO "
        + ks
        + ".devices_by_hour (hour, shard, device_id, last_ts) VALUES (?, ?, ?, ?)"
        + " USING TIMESTAMP ?";
  }

  public String insertTypeBucket() {
    return "INSERT INTO " + ks + ".buckets_by_type (device_type, bucket) VALUES (?, ?) USING TTL ?";
  }

  public String selectSlices() {
    return "SELECT slice_start, salts FROM "
        + ks
        + ".device_slices WHERE device_id = ? AND bucket = ?";
  }

  /** Created once per slice: every writer then places the slice's events alike. */
  public String createSlice() {
    return "INSERT INTO "
        + ks
        + ".device_slices (device_id, bucket, slice_start, salts) VALUES (?, ?, ?, ?)"
        + " IF NOT EXISTS USING TTL ?";
  }
}
