package io.ambergarden.live;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import java.util.function.Function;

/**
 * The live relay's records on their way to Kafka, bounded in bytes and in records. Each send sits
 * in the producer client's worker queue, and then in its buffer, until the broker answers; against
 * a slow or absent broker that would grow without end. Past the bound a record is dropped and
 * counted: the feed is best effort, and the events are in Cassandra for {@code since=}. Used on one
 * event loop.
 */
final class RelaySends<R> {
  private final Function<R, Future<?>> send;
  private final long maxBytes;
  private final int maxRecords;
  private final Counter dropped;
  private long pendingBytes;
  private int pendingRecords;

  /**
   * @param send hands a record to the producer; its future completes when the broker answered or
   *     the send failed
   */
  RelaySends(Function<R, Future<?>> send, long maxBytes, int maxRecords, Counter dropped) {
    this.send = send;
    this.maxBytes = maxBytes;
    this.maxRecords = maxRecords;
    this.dropped = dropped;
  }

  /** Sends the record, or drops and counts it when the bound is reached. */
  boolean offer(R record, int bytes) {
    if (pendingRecords >= maxRecords || pendingBytes + bytes > maxBytes) {
      dropped.increment();
      return false;
    }
    pendingBytes += bytes;
    pendingRecords++;
    send.apply(record)
        .onComplete(
            ar -> {
              pendingBytes -= bytes;
              pendingRecords--;
              if (ar.failed()) {
                dropped.increment();
              }
            });
    return true;
  }

  long pendingBytes() {
    return pendingBytes;
  }

  int pendingRecords() {
    return pendingRecords;
  }
}
