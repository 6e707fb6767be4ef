package io.ambergarden.ingest;

import io.vertx.kafka.client.consumer.KafkaReadStream;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Pauses and resumes the assigned partitions as a whole (never the poll loop, which keeps the
 * consumer in its group). Partitions assigned while paused are paused at once.
 */
final class FlowControl {
  private final KafkaReadStream<byte[], byte[]> stream;
  private final Set<TopicPartition> assigned = new HashSet<>();
  private boolean paused;

  FlowControl(KafkaReadStream<byte[], byte[]> stream) {
    this.stream = stream;
  }

  void assigned(Collection<TopicPartition> tps) {
    assigned.addAll(tps);
    if (paused) {
      stream.pause(Set.copyOf(tps));
    }
  }

  void revoked(Collection<TopicPartition> tps) {
    assigned.removeAll(tps);
  }

  Set<TopicPartition> assigned() {
    return Set.copyOf(assigned);
  }

  void pauseAll() {
    if (!paused && !assigned.isEmpty()) {
      stream.pause(Set.copyOf(assigned));
    }
    paused = true;
  }

  /** Resumes when paused and {@code allowed} (every reason to pause has gone). */
  void resumeIf(boolean allowed) {
    if (paused && allowed) {
      paused = false;
      if (!assigned.isEmpty()) {
        stream.resume(Set.copyOf(assigned));
      }
    }
  }
}
