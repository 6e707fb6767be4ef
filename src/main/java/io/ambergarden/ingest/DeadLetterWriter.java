package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.kafka.KafkaSettings;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.producer.KafkaWriteStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes dead letters: the original key, bytes and headers, then ours ({@link DeadLetterHeaders}).
 * Transient send errors are retried with backoff for at most {@code kafka.consumer.retry-timeout};
 * a permanent one (the letter is too large for the topic, the topic is not ours to write) fails at
 * once, and so does a transient one past that time: the caller must then stop consuming, because
 * the record can be neither processed nor set aside.
 */
final class DeadLetterWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterWriter.class);

  /** A dead letter that cannot be written. */
  static final class DeadLetterException extends RuntimeException {
    DeadLetterException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final Vertx vertx;
  private final String topic;
  private final RetryPolicy policy;
  private final KafkaWriteStream<byte[], byte[]> producer;

  DeadLetterWriter(Vertx vertx, AmberConfig.Kafka cfg, RetryPolicy policy) {
    this.vertx = vertx;
    this.topic = cfg.dlqTopic();
    this.policy = policy;
    this.producer =
        KafkaWriteStream.create(
            vertx,
            new HashMap<String, Object>(KafkaSettings.producer(cfg, "amber-dlq")),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    // failures are handled through each send's future; without a handler Vert.x logs them again
    producer.exceptionHandler(err -> {});
  }

  /**
   * Sends the dead letter of {@code rec}. Succeeds when it is written, or when {@code entry} is no
   * longer live (its partition moved to another instance, which will handle the record); fails with
   * a {@link DeadLetterException} when it cannot be written.
   */
  Future<Void> send(
      ConsumerRecord<byte[], byte[]> rec,
      OffsetTracker.Entry entry,
      String errorClass,
      String message) {
    return attempt(letter(topic, rec, errorClass, message), rec, entry, 0, 1);
  }

  /** The dead letter of {@code rec}: same key and value, its headers and then ours. */
  static ProducerRecord<byte[], byte[]> letter(
      String topic, ConsumerRecord<byte[], byte[]> rec, String errorClass, String message) {
    RecordHeaders headers = new RecordHeaders(rec.headers().toArray());
    headers
        .add(DeadLetterHeaders.SOURCE_TOPIC, utf8(rec.topic()))
        .add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(rec.partition())))
        .add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(rec.offset())))
        .add(DeadLetterHeaders.ERROR_CLASS, utf8(errorClass))
        .add(DeadLetterHeaders.ERROR_MESSAGE, utf8(message));
    return new ProducerRecord<>(topic, null, rec.key(), rec.value(), headers);
  }

  private Future<Void> attempt(
      ProducerRecord<byte[], byte[]> letter,
      ConsumerRecord<byte[], byte[]> rec,
      OffsetTracker.Entry entry,
      long firstFailure,
      int attempt) {
    if (!entry.live()) {
      return Future.succeededFuture();
    }
    return producer
        .send(letter)
        .<Void>mapEmpty()
        .recover(
            err -> {
              long now = System.currentTimeMillis();
              long first = firstFailure == 0 ? now : firstFailure;
              String where = rec.topic() + "-" + rec.partition() + "@" + rec.offset();
              if (ErrorClassifier.classify(err) == ErrorClassifier.Kind.PERMANENT) {
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
              Promise<Void> retried = Promise.promise();
              vertx.setTimer(
                  backoff,
                  id -> attempt(letter, rec, entry, first, attempt + 1).onComplete(retried));
              return retried.future();
            });
  }

  Future<Void> close() {
    return producer.close();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
