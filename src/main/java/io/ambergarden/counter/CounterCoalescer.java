package io.ambergarden.counter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pending counter increments, bounded. With coalescing, increments of the same cell merge into one
 * delta; without, every increment stays its own update. Not thread-safe: owned by one verticle.
 */
public final class CounterCoalescer {
  /** One counter update to write. */
  public record Update(CounterCell cell, long delta) {}

  private final boolean coalesce;
  private final int maxPending;
  private final Map<CounterCell, Long> merged = new LinkedHashMap<>();
  private final List<Update> separate = new ArrayList<>();
  private long increments;

  public CounterCoalescer(boolean coalesce, int maxPending) {
    this.coalesce = coalesce;
    this.maxPending = maxPending;
  }

  /**
   * Adds all cells (+1 each), or none when they would take the pending updates past the limit; the
   * caller then refuses the request. Checked against the worst case (no merging), so the limit
   * holds, with one exception: a request bigger than the whole limit is accepted into an empty
   * coalescer (it could never fit otherwise), and nothing is added after it until the next drain.
   */
  public boolean add(List<CounterCell> cells) {
    if (pending() + cells.size() > maxPending && pending() > 0) {
      return false;
    }
    for (CounterCell c : cells) {
      if (coalesce) {
        merged.merge(c, 1L, Long::sum);
      } else {
        separate.add(new Update(c, 1));
      }
    }
    increments += cells.size();
    return true;
  }

  /** Updates that a flush would write now. */
  public int pending() {
    return coalesce ? merged.size() : separate.size();
  }

  /** Increments added since the last drain (at least {@link #pending()}). */
  public long increments() {
    return increments;
  }

  /** Takes every pending update, grouped by partition, and empties the coalescer. */
  public Map<Object, List<Update>> drain() {
    Map<Object, List<Update>> byPartition = new LinkedHashMap<>();
    if (coalesce) {
      merged.forEach(
          (cell, delta) ->
              byPartition
                  .computeIfAbsent(cell.partition(), k -> new ArrayList<>())
                  .add(new Update(cell, delta)));
      merged.clear();
    } else {
      separate.forEach(
          u -> byPartition.computeIfAbsent(u.cell().partition(), k -> new ArrayList<>()).add(u));
      separate.clear();
    }
    increments = 0;
    return byPartition;
  }
}
