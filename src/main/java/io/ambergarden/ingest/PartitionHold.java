package io.ambergarden.ingest;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether the consumer's partitions should be paused, decided on the event loop and applied on the
 * consumer's thread to the partitions it owns at that moment (before every poll, and inside the
 * poll when partitions are assigned). A set named on the event loop can be stale by the time the
 * consumer's thread acts on it, after a rebalance, and pausing a partition no longer owned throws.
 */
final class PartitionHold {
  private volatile boolean held;

  /** Event loop: every owned partition is to be paused ({@code true}) or to flow. */
  void hold(boolean paused) {
    held = paused;
  }

  boolean held() {
    return held;
  }

  /** Consumer's thread: brings the owned partitions in line with the hold. */
  void apply(Consumer<?, ?> consumer) {
    Set<TopicPartition> owned = consumer.assignment();
    Set<TopicPartition> paused = new HashSet<>(consumer.paused());
    paused.retainAll(owned);
    if (held) {
      Set<TopicPartition> flowing = new HashSet<>(owned);
      flowing.removeAll(paused);
      if (!flowing.isEmpty()) {
        consumer.pause(flowing);
      }
    } else if (!paused.isEmpty()) {
      consumer.resume(paused);
    }
  }
}
