package io.ambergarden.counter;

import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** The counter increments (each +1) of one event. */
public final class CounterCells {
  public static final String ALL = "all";
  public static final String CODE = "code";
  public static final String STATUS = "status";

  /** Per device type: one more cell in the same day partition, so it coalesces as well. */
  public static final String TYPE = "type";

  /** Device cell of events without a status; the device total is the sum of its cells. */
  public static final String NO_STATUS = "none";

  public static final String STATUS_PREFIX = "status:";

  private CounterCells() {}

  public static List<CounterCell> of(Event e, int shards) {
    List<CounterCell> cells = new ArrayList<>(6);
    LocalDate day = TimeBuckets.utcDay(e.ts());
    // shard by device: spreads a day over the shards and keeps one event's cells in one partition
    int shard = RowKeys.salt(e.deviceId(), shards);
    cells.add(new CounterCell.Day(day, shard, ALL, ""));
    if (e.code() != null) {
      cells.add(new CounterCell.Day(day, shard, CODE, Integer.toString(e.code())));
    }
    if (e.status() != null) {
      cells.add(new CounterCell.Day(day, shard, STATUS, e.status()));
    }
    if (e.deviceType() != null) {
      cells.add(new CounterCell.Day(day, shard, TYPE, e.deviceType()));
    }
    // one cell per event: per-device cells rarely coalesce, so a separate total cell would double
    // the writes
    cells.add(
        new CounterCell.Device(
            e.deviceId(), e.status() == null ? NO_STATUS : STATUS_PREFIX + e.status()));
    return cells;
  }
}
