package io.ambergarden.ingest;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Pauses and resumes the assigned partitions as a whole (never the poll loop, which keeps the
 * consumer in its group). The decision is taken here, on the event loop; {@link PartitionHold}
 * applies it on the consumer's thread to the current assignment, so partitions assigned while
 * paused are paused at once and a rebalance between decision and application cannot leave some
 * partitions paused and others flowing.
 */
final class FlowControl {
  private final PartitionHold hold;
  private final Set<TopicPartition> assigned = new HashSet<>();

  FlowControl(PartitionHold hold) {
    this.hold = hold;
  }

  void assigned(Collection<TopicPartition> tps) {
    assigned.addAll(tps);
  }

  void revoked(Collection<TopicPartition> tps) {
    assigned.removeAll(tps);
  }

  /** The event loop's view of the assignment (for lag and logs). */
  Set<TopicPartition> assigned() {
    return Set.copyOf(assigned);
  }

  boolean paused() {
    return hold.held();
  }

  void pauseAll() {
    hold.hold(true);
  }

  /** Resumes when paused and {@code allowed} (every reason to pause has gone). */
  void resumeIf(boolean allowed) {
    if (allowed) {
      hold.hold(false);
    }
  }
}
