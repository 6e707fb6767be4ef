package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.Event;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchWriterTest {
  private final Vertx vertx = Vertx.vertx();
  private final AmberConfig config =
      ConfigLoader.load(
          Map.of(),
          new Properties(),
          Map.of("kafka.breaker.failure-threshold", "3", "kafka.breaker.reset-timeout", "100ms"));
  private final OffsetTracker<Integer> tracker = new OffsetTracker<>();
  private final List<String> written = new CopyOnWriteArrayList<>();
  private final List<String> circuit = new CopyOnWriteArrayList<>();
  private BatchWriter writer;

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A writer on the bus that answers each request with {@code answer}. */
  private void writerAnswers(Consumer<Message<PersistRequest>> answer) throws Exception {
    LocalCodec.registerAll(vertx);
    vertx
        .eventBus()
        .<PersistRequest>consumer(Addresses.WRITER_PERSIST.address(), answer::accept)
        .completion()
        .await(10, TimeUnit.SECONDS);
    vertx
        .executeBlocking(() -> null)
        .await(10, TimeUnit.SECONDS); // the bus is ready before the writer is made
    Future.<Void>future(
            p ->
                vertx.runOnContext(
                    v -> {
                      writer =
                          new BatchWriter(
                              vertx,
                              config,
                              new RetryPolicy(60_000, 20),
                              new BatchWriter.Outcomes() {
                                @Override
                                public void written(List<BatchWriter.Pending> records) {
                                  records.forEach(r -> written.add(r.event().eventId()));
                                }

                                @Override
                                public void rejected(BatchWriter.Pending record, Throwable cause) {}
                              },
                              new BatchWriter.Circuit() {
                                @Override
                                public void opened() {
                                  circuit.add("open");
                                }

                                @Override
                                public void halfOpen() {
                                  circuit.add("half-open");
                                }

                                @Override
                                public void closed() {
                                  circuit.add("closed");
                                }
                              });
                      p.complete();
                    }))
        .await(10, TimeUnit.SECONDS);
  }

  private List<BatchWriter.Pending> batch(int n) {
    tracker.assign(List.of(0));
    List<BatchWriter.Pending> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      OffsetTracker.Entry entry = tracker.begin(0, i);
      out.add(
          new BatchWriter.Pending(
              entry,
              new ConsumerRecord<>("t", 0, i, new byte[0], new byte[0]),
              new Event("dev", 1_000 + i, "e" + i)));
    }
    return out;
  }

  private void write(List<BatchWriter.Pending> batch) {
    vertx.runOnContext(v -> writer.write(batch));
  }

  @Test
  void overloadedAnswersAreBackPressureThatNeverOpensTheCircuit() throws Exception {
    AtomicInteger answers = new AtomicInteger();
    writerAnswers(
        m -> {
          if (answers.incrementAndGet() <= 10) {
            FailureCode.OVERLOADED.fail(m, "writer overloaded (test)");
          } else {
            m.reply(new PersistResult(m.body().events().size()));
          }
        });
    write(batch(5));
    await().atMost(Duration.ofSeconds(20)).until(() -> written.size() == 5);
    assertThat(answers.get()).isEqualTo(11);
    assertThat(circuit).as("circuit changes").isEmpty();
    assertThat(writer.circuitClosed()).isTrue();
  }

  @Test
  void unavailableAnswersStillOpenTheCircuit() throws Exception {
    writerAnswers(m -> FailureCode.UNAVAILABLE.fail(m, "store down (test)"));
    write(batch(1));
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("open"));
    assertThat(written).isEmpty();
  }

  @Test
  void aHalfOpenCircuitWithNothingLeftToWriteIsClosedByAProbe() throws Exception {
    writerAnswers(m -> FailureCode.UNAVAILABLE.fail(m, "store down (test)"));
    List<BatchWriter.Pending> batch = batch(1);
    write(batch);
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("open"));
    // the partition moved away: its record is dropped, nothing is left to try the store with
    vertx.runOnContext(v -> tracker.revoke(List.of(0)));
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("half-open"));
    vertx.runOnContext(v -> writer.probe(Future::succeededFuture));
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("closed"));
    assertThat(writer.circuitClosed()).isTrue();
  }

  @Test
  void aFailedProbeOpensTheCircuitAgain() throws Exception {
    writerAnswers(m -> FailureCode.UNAVAILABLE.fail(m, "store down (test)"));
    write(batch(1));
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("open"));
    vertx.runOnContext(v -> tracker.revoke(List.of(0)));
    await().atMost(Duration.ofSeconds(20)).until(() -> circuit.contains("half-open"));
    int opened = (int) circuit.stream().filter("open"::equals).count();
    vertx.runOnContext(v -> writer.probe(() -> Future.failedFuture("store still down")));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> circuit.stream().filter("open"::equals).count() > opened);
    assertThat(circuit).doesNotContain("closed");
  }
}
