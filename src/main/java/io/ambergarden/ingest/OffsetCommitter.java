package io.ambergarden.ingest;

import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaReadStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the finished offsets of {@link OffsetTracker}, one commit at a time. A commit runs on the
 * consumer's own thread, where during a broker outage it blocks until its timeout; queueing one
 * every tick would stack them in front of poll() and exceed max.poll.interval.ms, so a tick while a
 * commit is outstanding does nothing.
 */
final class OffsetCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);

  private final KafkaReadStream<byte[], byte[]> stream;
  private final OffsetTracker<TopicPartition> tracker;
  private Future<Void> outstanding;
  private boolean failing;

  OffsetCommitter(KafkaReadStream<byte[], byte[]> stream, OffsetTracker<TopicPartition> tracker) {
    this.stream = stream;
    this.tracker = tracker;
  }

  /** The periodic commit: skipped while the previous one is outstanding. */
  void tick() {
    if (outstanding == null) {
      commit();
    }
  }

  /** Commits what has finished, after any outstanding commit (the final commit at shutdown). */
  Future<Void> commitNow() {
    Future<Void> before = outstanding == null ? Future.succeededFuture() : outstanding;
    return before.transform(ar -> commit());
  }

  private Future<Void> commit() {
    Map<TopicPartition, Long> offsets = tracker.toCommit();
    if (offsets.isEmpty()) {
      return Future.succeededFuture();
    }
    Map<TopicPartition, OffsetAndMetadata> request = new HashMap<>();
    offsets.forEach((tp, off) -> request.put(tp, new OffsetAndMetadata(off)));
    Future<Void> f =
        stream
            .commit(request)
            .<Void>mapEmpty()
            .onSuccess(
                v -> {
                  tracker.committed(offsets);
                  if (failing) {
                    failing = false;
                    LOG.info("offset commits succeed again");
                  }
                })
            .onFailure(
                err -> {
                  // logged once per failing period: during an outage this fails every tick
                  if (!failing) {
                    failing = true;
                    LOG.warn("offset commit failed (will retry): {}", err.toString());
                  }
                });
    outstanding = f;
    return f.eventually(
        () -> {
          if (outstanding == f) {
            outstanding = null;
          }
          return Future.succeededFuture();
        });
  }
}
