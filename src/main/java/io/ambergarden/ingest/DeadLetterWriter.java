package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.kafka.KafkaSettings;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.producer.KafkaWriteStream;
import java.util.HashMap;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes dead letters ({@link DeadLetters}): the whole letter when it fits, else a cut one. A
 * permanent send error (the letter is too large for the topic, the topic is not ours to write)
 * moves on to the next, smaller letter at once. Transient errors are retried with backoff for at
 * most {@code kafka.consumer.retry-timeout}. When no letter can be written, the send fails with a
 * {@link DeadLetterException} and the caller decides what becomes of the record.
 */
final class DeadLetterWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterWriter.class);

  /** A dead letter that cannot be written. */
  static final class DeadLetterException extends RuntimeException {
    DeadLetterException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Sends one letter; the producer in service, a stand-in in tests. */
  interface Sender {
    Future<Void> send(ProducerRecord<byte[], byte[]> letter);

    Future<Void> close();
  }

  private final Vertx vertx;
  private final String topic;
  private final RetryPolicy policy;
  private final Sender sender;

  DeadLetterWriter(Vertx vertx, AmberConfig.Kafka cfg, RetryPolicy policy) {
    this(vertx, cfg.dlqTopic(), policy, producer(vertx, cfg));
  }

  DeadLetterWriter(Vertx vertx, String topic, RetryPolicy policy, Sender sender) {
    this.vertx = vertx;
    this.topic = topic;
    this.policy = policy;
    this.sender = sender;
  }

  private static Sender producer(Vertx vertx, AmberConfig.Kafka cfg) {
    KafkaWriteStream<byte[], byte[]> producer =
        KafkaWriteStream.create(
            vertx,
            new HashMap<String, Object>(KafkaSettings.producer(cfg, "amber-dlq")),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    // failures are handled through each send's future; without a handler Vert.x logs them again
    producer.exceptionHandler(err -> {});
    return new Sender() {
      @Override
      public Future<Void> send(ProducerRecord<byte[], byte[]> letter) {
        return producer.send(letter).mapEmpty();
      }

      @Override
      public Future<Void> close() {
        return producer.close();
      }
    };
  }

  /**
   * Sends the dead letter of {@code rec}. Succeeds with the shape written, or with null when {@code
   * entry} is no longer live (its partition moved to another instance, which will handle the
   * record); fails with a {@link DeadLetterException} when no letter can be written.
   */
  Future<DeadLetters.Shape> send(
      ConsumerRecord<byte[], byte[]> rec,
      OffsetTracker.Entry entry,
      String errorClass,
      String message) {
    return attempt(
        DeadLetters.of(topic, rec, errorClass, message), 0, rec, entry, Monotonic.NEVER, 1);
  }

  private Future<DeadLetters.Shape> attempt(
      List<DeadLetters.Letter> letters,
      int index,
      ConsumerRecord<byte[], byte[]> rec,
      OffsetTracker.Entry entry,
      long firstFailure,
      int attempt) {
    if (!entry.live()) {
      return Future.succeededFuture();
    }
    DeadLetters.Letter letter = letters.get(index);
    return sender
        .send(letter.record())
        .map(v -> letter.shape())
        .recover(
            err -> {
              long now = Monotonic.millis();
              long first = firstFailure == Monotonic.NEVER ? now : firstFailure;
              String where = rec.topic() + "-" + rec.partition() + "@" + rec.offset();
              if (ErrorClassifier.classify(err) == ErrorClassifier.Kind.PERMANENT) {
                if (index + 1 < letters.size()) {
                  DeadLetters.Shape next = letters.get(index + 1).shape();
                  LOG.info(
                      "{} dead letter of {} refused ({}), sending it {}",
                      letter.shape(),
                      where,
                      err.toString(),
                      next);
                  return attempt(letters, index + 1, rec, entry, firstFailure, 1);
                }
                return Future.failedFuture(
                    new DeadLetterException(
                        "dead letter of " + where + " cannot be written: " + err, err));
              }
              if (!policy.withinTimeout(first, now)) {
                return Future.failedFuture(
                    new DeadLetterException(
                        "dead letter of "
                            + where
                            + " still failing after the retry timeout: "
                            + err,
                        err));
              }
              long backoff = policy.backoff(attempt);
              if (attempt == 1 || attempt % 10 == 0) {
                LOG.warn(
                    "dead-lettering {} failed (attempt {}), retrying in {} ms: {}",
                    where,
                    attempt,
                    backoff,
                    err.toString());
              }
              Promise<DeadLetters.Shape> retried = Promise.promise();
              vertx.setTimer(
                  backoff,
                  id ->
                      attempt(letters, index, rec, entry, first, attempt + 1).onComplete(retried));
              return retried.future();
            });
  }

  Future<Void> close() {
    return sender.close();
  }
}
