package io.ambergarden.counter;

import io.ambergarden.bus.CountFacts;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The counter cells a count fact increments, each by the fact's number of events. The exact counts
 * of the rollup recompute use the same names and dimensions, so a read can take an hour from
 * either.
 */
public final class CounterCells {
  public static final String ALL = "all";
  public static final String CODE = "code";
  public static final String STATUS = "status";

  /** Per device type: one more cell in the same day partition, so it coalesces as well. */
  public static final String TYPE = "type";

  /** Device cell of events without a status; the device total is the sum of its cells. */
  public static final String NO_STATUS = "none";

  public static final String STATUS_PREFIX = "status:";

  /**
   * What a cell counts, as metrics tag it: {@link #DEVICE} for a device's cells, else the day
   * stats' dimension.
   */
  public static final String DEVICE = "device";

  public static final List<String> KINDS = List.of(DEVICE, ALL, CODE, STATUS, TYPE);

  private CounterCells() {}

  /** The name of a device cell for an event of {@code status} (nullable). */
  public static String deviceName(String status) {
    return status == null ? NO_STATUS : STATUS_PREFIX + status;
  }

  /**
   * @param shards the count shards (rollup.shards): a device's cells live in its shard, as its
   *     exact counts do
   */
  public static List<CounterCell> of(CountFacts.Fact f, int shards) {
    List<CounterCell> cells = new ArrayList<>(5);
    LocalDate day = TimeBuckets.utcDay(f.hour());
    int shard = RowKeys.salt(f.deviceId(), shards);
    cells.add(new CounterCell.StatusHour(day, shard, f.hour(), ALL, ""));
    if (f.code() != null) {
      cells.add(new CounterCell.StatusHour(day, shard, f.hour(), CODE, Integer.toString(f.code())));
    }
    if (f.status() != null) {
      cells.add(new CounterCell.StatusHour(day, shard, f.hour(), STATUS, f.status()));
    }
    if (f.deviceType() != null) {
      cells.add(new CounterCell.StatusHour(day, shard, f.hour(), TYPE, f.deviceType()));
    }
    // one device cell per fact: a separate total cell would double the device writes
    cells.add(
        new CounterCell.DeviceHour(day, shard, f.deviceId(), f.hour(), deviceName(f.status())));
    return cells;
  }
}
