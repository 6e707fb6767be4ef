package io.ambergarden.web.ingest;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Hands the records of kafka-mode POSTs to the producer, one request after another, on a thread of
 * its own: {@code send} blocks (up to max.block.ms) while the producer's buffer is full or its
 * metadata is missing, which an event loop must never do. Each request has a deadline; its records
 * not handed by then are dropped, never sent later. Once handed, a record lives in the producer's
 * own bounded buffer (buffer.memory). The queue of waiting requests has no bound of its own: it is
 * bounded by ingest.max-in-flight-requests and ingest.max-in-flight-bytes, because a request keeps
 * its share of both until {@link Sent#handedOrDropped()} completes.
 */
final class KafkaHandOff implements AutoCloseable {
  static final String REQUEST_ID_HEADER = "amber.request-id";

  private final Producer<byte[], byte[]> producer;
  private final LongSupplier nanoClock;
  private final ExecutorService sender;

  /** The two outcomes of one request's records. */
  record Sent(CompletableFuture<Void> handedOrDropped, CompletableFuture<Void> acked) {}

  /** Records dropped because their request's deadline passed before they were handed on. */
  static final class Dropped extends RuntimeException {
    Dropped(int count) {
      super(
          count + " event(s) not handed to Kafka before the request's deadline",
          null,
          false,
          false);
    }
  }

  KafkaHandOff(Producer<byte[], byte[]> producer, String threadName, LongSupplier nanoClock) {
    this.producer = producer;
    this.nanoClock = nanoClock;
    this.sender =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Queues one request's records (keys and values, in order; the lists are taken over and emptied
   * as records are handed on) for the topic; every record not handed on by {@code deadlineNanos}
   * (of the clock given at construction) is dropped.
   */
  Sent submit(
      String topic, List<byte[]> keys, List<byte[]> values, String requestId, long deadlineNanos) {
    Job job =
        new Job(topic, keys, values, requestId.getBytes(StandardCharsets.UTF_8), deadlineNanos);
    try {
      sender.execute(job);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      job.dropFrom(0, new IllegalStateException("the producer is closing"));
    }
    return job.sent;
  }

  /** Drops what still waits, interrupts a blocked send; the producer itself is closed elsewhere. */
  @Override
  public void close() {
    for (Runnable r : sender.shutdownNow()) {
      ((Job) r).dropFrom(0, new IllegalStateException("the producer is closing"));
    }
  }

  private final class Job implements Runnable {
    final String topic;
    final List<byte[]> keys;
    final List<byte[]> values;
    final byte[] requestId;
    final long deadline;
    final Sent sent = new Sent(new CompletableFuture<>(), new CompletableFuture<>());
    final AtomicInteger unsettled;
    final AtomicReference<Exception> firstError = new AtomicReference<>();
    private boolean over;

    Job(String topic, List<byte[]> keys, List<byte[]> values, byte[] requestId, long deadline) {
      this.topic = topic;
      this.keys = keys;
      this.values = values;
      this.requestId = requestId;
      this.deadline = deadline;
      this.unsettled = new AtomicInteger(values.size());
      if (values.isEmpty()) {
        sent.handedOrDropped.complete(null);
        sent.acked.complete(null);
      }
    }

    @Override
    public void run() {
      int n = values.size();
      for (int i = 0; i < n; i++) {
        if (nanoClock.getAsLong() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
          dropFrom(i, new Dropped(n - i));
          return;
        }
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                topic,
                null,
                keys.get(i),
                values.get(i),
                new RecordHeaders(new Header[] {new RecordHeader(REQUEST_ID_HEADER, requestId)}));
        // from here on the producer holds the bytes (in its bounded buffer), not this request
        keys.set(i, null);
        values.set(i, null);
        try {
          producer.send(record, (metadata, err) -> settle(1, err));
        } catch (RuntimeException e) {
          settle(1, e);
        }
      }
      finishHandOff();
    }

    /** Drops the records from index {@code from} on (none handed yet past it). */
    synchronized void dropFrom(int from, Exception why) {
      if (over) {
        return;
      }
      int dropped = values.size() - from;
      for (int i = from; i < values.size(); i++) {
        keys.set(i, null);
        values.set(i, null);
      }
      finishHandOff();
      settle(dropped, why);
    }

    private synchronized void finishHandOff() {
      over = true;
      sent.handedOrDropped.complete(null);
    }

    private void settle(int count, Exception err) {
      if (count == 0) {
        return;
      }
      if (err != null) {
        firstError.compareAndSet(null, err);
      }
      if (unsettled.addAndGet(-count) == 0) {
        Exception e = firstError.get();
        if (e == null) {
          sent.acked.complete(null);
        } else {
          sent.acked.completeExceptionally(e);
        }
      }
    }
  }
}
