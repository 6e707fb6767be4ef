package io.ambergarden.counter;

import java.time.LocalDate;

/**
 * One counter cell, per hour. Cells of the same {@link #partition()} may share a counter batch;
 * both tables are partitioned by (UTC day, count shard).
 */
public sealed interface CounterCell {
  Object partition();

  /** The partition of a cell: its table and (day, shard). */
  record Partition(String table, LocalDate day, int shard) {}

  /**
   * status_counts_by_hour: dimension 'all' (value ''), 'code', 'status' or 'type'.
   *
   * @param hour the hour's start, epoch millis
   */
  record StatusHour(LocalDate day, int shard, long hour, String dimension, String value)
      implements CounterCell {
    @Override
    public Object partition() {
      return new Partition("status", day, shard);
    }
  }

  /** device_counts_by_hour: name 'status:<status>', or 'none' for events without a status. */
  record DeviceHour(LocalDate day, int shard, String deviceId, long hour, String name)
      implements CounterCell {
    @Override
    public Object partition() {
      return new Partition("device", day, shard);
    }
  }
}
