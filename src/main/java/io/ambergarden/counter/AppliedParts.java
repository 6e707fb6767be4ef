package io.ambergarden.counter;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What this process already applied of each journal part (a due bucket's chunk, which no write can
 * change any more), so a part sent again after a partial failure applies only the updates that did
 * not succeed, and a part sent again after it succeeded applies nothing. Without it, every scan
 * that retried a bucket counted its applied statements once more: a node whose clock was skewed
 * made the day stats five times the events sent. An update whose last attempt timed out stays in
 * the remainder (its outcome is unknown, so it may count twice, as the counters allow).
 *
 * <p>Bounded: the oldest entries are forgotten beyond the limits, and a forgotten part is applied
 * whole again, as a new owner of the shard would. Not thread-safe: one per verticle.
 */
final class AppliedParts {
  /** What to do with a part. */
  sealed interface Start {}

  /** Applied already: answer at once. */
  record Done() implements Start {}

  /** Still being applied by an earlier request: refuse this one. */
  record InProgress() implements Start {}

  /** Apply these updates (the part's remainder, or all of it). */
  record Apply(List<CounterCoalescer.Update> updates, boolean remainder) implements Start {}

  private final Set<String> applying = new HashSet<>();
  private final Map<String, Boolean> done;
  private final Map<String, List<CounterCoalescer.Update>> remainders;

  AppliedParts(int maxDone, int maxRemainders) {
    if (maxDone < 1 || maxRemainders < 1) {
      throw new IllegalArgumentException("limits must be positive");
    }
    this.done = lru(maxDone);
    this.remainders = lru(maxRemainders);
  }

  private static <V> Map<String, V> lru(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > max;
      }
    };
  }

  /** Starts applying {@code part}; {@code all} gives every update of it. */
  Start start(String part, Supplier<List<CounterCoalescer.Update>> all) {
    if (done.containsKey(part)) {
      return new Done();
    }
    if (!applying.add(part)) {
      return new InProgress();
    }
    List<CounterCoalescer.Update> rest = remainders.remove(part);
    return rest != null ? new Apply(rest, true) : new Apply(all.get(), false);
  }

  /** The part's statements finished; {@code notApplied} are the updates that did not succeed. */
  void finish(String part, List<CounterCoalescer.Update> notApplied) {
    applying.remove(part);
    if (notApplied.isEmpty()) {
      done.put(part, Boolean.TRUE);
    } else {
      remainders.put(part, List.copyOf(notApplied));
    }
  }

  /** The part could not be started after all: it is applied anew next time. */
  void abandon(String part) {
    applying.remove(part);
  }

  int remainders() {
    return remainders.size();
  }
}
