package io.ambergarden.counter;

import io.ambergarden.bus.CountFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges the increments of count facts into one delta per counter cell. Not thread-safe: owned by
 * one verticle, for one apply request.
 */
public final class CounterCoalescer {
  /** One counter update to write. */
  public record Update(CounterCell cell, long delta) {}

  private final int shards;
  private final Map<CounterCell, Long> merged = new LinkedHashMap<>();

  public CounterCoalescer(int shards) {
    this.shards = shards;
  }

  public CounterCoalescer add(List<CountFacts.Fact> facts) {
    for (CountFacts.Fact f : facts) {
      for (CounterCell c : CounterCells.of(f, shards)) {
        merged.merge(c, (long) f.events(), Long::sum);
      }
    }
    return this;
  }

  /** Distinct cells pending. */
  public int pending() {
    return merged.size();
  }

  /** Every pending update. */
  public List<Update> updates() {
    List<Update> out = new ArrayList<>(merged.size());
    merged.forEach((cell, delta) -> out.add(new Update(cell, delta)));
    return out;
  }

  /** {@code updates} grouped by partition, in their order. */
  public static Map<Object, List<Update>> byPartition(List<Update> updates) {
    Map<Object, List<Update>> out = new LinkedHashMap<>();
    updates.forEach(u -> out.computeIfAbsent(u.cell().partition(), k -> new ArrayList<>()).add(u));
    return out;
  }
}
