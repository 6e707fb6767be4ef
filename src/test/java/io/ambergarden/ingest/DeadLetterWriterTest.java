package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeadLetterWriterTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Answers each send with the next scripted error, or success once the script is used up. */
  private static final class ScriptedSender implements DeadLetterWriter.Sender {
    final Deque<RuntimeException> errors;
    final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();

    ScriptedSender(RuntimeException... errors) {
      this.errors = new ArrayDeque<>(List.of(errors));
    }

    @Override
    public Future<Void> send(ProducerRecord<byte[], byte[]> letter) {
      sent.add(letter);
      RuntimeException e = errors.poll();
      return e == null ? Future.succeededFuture() : Future.failedFuture(e);
    }

    @Override
    public Future<Void> close() {
      return Future.succeededFuture();
    }
  }

  private static ConsumerRecord<byte[], byte[]> record(byte[] value) {
    return new ConsumerRecord<>(
        "amber.events",
        0,
        7L,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        "d".getBytes(StandardCharsets.UTF_8),
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  private static OffsetTracker.Entry liveEntry() {
    OffsetTracker<String> tracker = new OffsetTracker<>();
    tracker.assign(List.of("p"));
    return tracker.begin("p", 7);
  }

  private static <T> Future<T> await(Future<T> f) throws Exception {
    try {
      f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      // the outcome is read from the future
    }
    return f;
  }

  private DeadLetterWriter writer(ScriptedSender sender, long retryTimeoutMs) {
    return new DeadLetterWriter(vertx, "dlq", new RetryPolicy(retryTimeoutMs, 50), sender);
  }

  @Test
  void aLetterTheTopicRefusesAsTooLargeIsSentAgainCut() throws Exception {
    ScriptedSender sender = new ScriptedSender(new RecordTooLargeException("topic limit"));
    byte[] value = new byte[64 * 1024];

    Future<DeadLetters.Shape> sent =
        await(writer(sender, 10_000).send(record(value), liveEntry(), "InvalidDocument", "m"));

    assertThat(sent.succeeded()).isTrue();
    assertThat(sent.result()).isEqualTo(DeadLetters.Shape.TRUNCATED);
    assertThat(sender.sent).hasSize(2);
    assertThat(sender.sent.get(0).value()).hasSize(value.length);
    assertThat(sender.sent.get(1).value()).hasSize(DeadLetters.TRUNCATED_VALUE_BYTES);
  }

  @Test
  void whenEvenTheBareLetterIsRefusedTheSendFailsWithoutRetrying() throws Exception {
    ScriptedSender sender =
        new ScriptedSender(
            new RecordTooLargeException("1"),
            new RecordTooLargeException("2"),
            new AuthorizationException("3"),
            new RecordTooLargeException("never reached"));

    Future<DeadLetters.Shape> sent =
        await(
            writer(sender, 10_000)
                .send(record(new byte[64 * 1024]), liveEntry(), "InvalidDocument", "m"));

    assertThat(sent.failed()).isTrue();
    assertThat(sent.cause())
        .isInstanceOf(DeadLetterWriter.DeadLetterException.class)
        .hasMessageContaining("amber.events-0@7")
        .hasMessageContaining("AuthorizationException");
    assertThat(sender.sent).hasSize(3);
    assertThat(sender.sent.get(2).value()).isEmpty();
  }

  @Test
  void aTransientErrorIsRetriedWithTheSameLetter() throws Exception {
    ScriptedSender sender =
        new ScriptedSender(
            new NotEnoughReplicasException("1"), new NotEnoughReplicasException("2"));

    Future<DeadLetters.Shape> sent =
        await(writer(sender, 10_000).send(record(new byte[10]), liveEntry(), "X", "m"));

    assertThat(sent.result()).isEqualTo(DeadLetters.Shape.WHOLE);
    assertThat(sender.sent).hasSize(3);
    assertThat(sender.sent).allMatch(r -> r.value().length == 10);
  }

  @Test
  void aTransientErrorPastTheRetryTimeoutFailsTheSend() throws Exception {
    RuntimeException[] always = new RuntimeException[1000];
    java.util.Arrays.fill(always, new NotEnoughReplicasException("down"));
    ScriptedSender sender = new ScriptedSender(always);

    Future<DeadLetters.Shape> sent =
        await(writer(sender, 300).send(record(new byte[10]), liveEntry(), "X", "m"));

    assertThat(sent.failed()).isTrue();
    assertThat(sent.cause()).hasMessageContaining("after the retry timeout");
  }
}
