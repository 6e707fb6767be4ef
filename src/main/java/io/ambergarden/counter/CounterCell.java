package io.ambergarden.counter;

import java.time.LocalDate;

/** One counter cell. Cells of the same {@link #partition()} may share a counter batch. */
public sealed interface CounterCell {
  Object partition();

  /** status_counts_by_day: dimension 'all', 'code' or 'status'. */
  record Day(LocalDate day, int shard, String dimension, String value) implements CounterCell {
    public record Partition(LocalDate day, int shard) {}

    @Override
    public Object partition() {
      return new Partition(day, shard);
    }
  }

  /** device_counters: name 'status:<status>', or 'none' for events without a status. */
  record Device(String deviceId, String name) implements CounterCell {
    @Override
    public Object partition() {
      return deviceId;
    }
  }
}
