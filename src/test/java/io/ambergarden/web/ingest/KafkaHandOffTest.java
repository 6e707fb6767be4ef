package io.ambergarden.web.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class KafkaHandOffTest {
  private final AtomicLong now = new AtomicLong();

  private static List<byte[]> bytes(int n, String prefix) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void everyRecordHandedOnIsAcknowledgedWithTheRequestIdInOrder() throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(true, new ByteArraySerializer(), new ByteArraySerializer());
    try (KafkaHandOff handOff = new KafkaHandOff(producer, "test-hand-off", now::get)) {
      KafkaHandOff.Sent sent =
          handOff.submit("t", bytes(5, "k"), bytes(5, "v"), "req-1", Long.MAX_VALUE);
      sent.acked().get(10, TimeUnit.SECONDS);
      // the last ack can arrive before the hand-off loop marks itself done
      sent.handedOrDropped().get(10, TimeUnit.SECONDS);
      assertThat(producer.history()).hasSize(5);
      assertThat(new String(producer.history().get(4).value(), StandardCharsets.UTF_8))
          .isEqualTo("v4");
      assertThat(producer.history().get(0).headers().lastHeader("amber.request-id").value())
          .isEqualTo("req-1".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void recordsStillWaitingAtTheDeadlineAreDroppedAndTheRequestFails() throws Exception {
    CountDownLatch secondSendStarted = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    // the second send blocks as a full buffer makes it block (max.block.ms)
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(true, new ByteArraySerializer(), new ByteArraySerializer()) {
          @Override
          public synchronized Future<RecordMetadata> send(
              ProducerRecord<byte[], byte[]> r, Callback cb) {
            if (history().size() == 1) {
              secondSendStarted.countDown();
              try {
                unblock.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return super.send(r, cb);
          }
        };
    try (KafkaHandOff handOff = new KafkaHandOff(producer, "test-hand-off", now::get)) {
      KafkaHandOff.Sent blocked = handOff.submit("t", bytes(10, "k"), bytes(10, "v"), "a", 100);
      KafkaHandOff.Sent queued = handOff.submit("t", bytes(10, "k"), bytes(10, "w"), "b", 100);
      assertThat(secondSendStarted.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(blocked.handedOrDropped()).isNotDone();
      assertThat(queued.handedOrDropped()).isNotDone();
      now.set(100); // both deadlines pass while the send blocks
      unblock.countDown();
      blocked.handedOrDropped().get(10, TimeUnit.SECONDS);
      queued.handedOrDropped().get(10, TimeUnit.SECONDS);
      assertThat(producer.history()).as("records sent").hasSize(2);
      assertThat(failure(blocked))
          .isInstanceOf(KafkaHandOff.Dropped.class)
          .hasMessageContaining("8");
      assertThat(failure(queued))
          .isInstanceOf(KafkaHandOff.Dropped.class)
          .hasMessageContaining("10");
    }
  }

  @Test
  void closingDropsTheRequestsStillQueued() throws Exception {
    CountDownLatch blocking = new CountDownLatch(1);
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(true, new ByteArraySerializer(), new ByteArraySerializer()) {
          @Override
          public synchronized Future<RecordMetadata> send(
              ProducerRecord<byte[], byte[]> r, Callback cb) {
            blocking.countDown();
            try {
              new CountDownLatch(1).await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.send(r, cb);
          }
        };
    KafkaHandOff handOff = new KafkaHandOff(producer, "test-hand-off", now::get);
    KafkaHandOff.Sent running =
        handOff.submit("t", bytes(3, "k"), bytes(3, "v"), "a", Long.MAX_VALUE);
    KafkaHandOff.Sent queued =
        handOff.submit("t", bytes(3, "k"), bytes(3, "v"), "b", Long.MAX_VALUE);
    assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
    handOff.close();
    queued.handedOrDropped().get(10, TimeUnit.SECONDS);
    running.handedOrDropped().get(10, TimeUnit.SECONDS);
    assertThat(failure(queued)).isInstanceOf(IllegalStateException.class);
    assertThat(failure(running)).isNotNull();
  }

  private static Throwable failure(KafkaHandOff.Sent sent) throws Exception {
    try {
      sent.acked().get(10, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
