package io.ambergarden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RetryUntilDoneTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void aFailedAttemptIsUndoneAndTriedAgainUntilItSucceeds() {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger undone = new AtomicInteger();
    RetryUntilDone.run(
        vertx,
        "test step",
        () ->
            attempts.incrementAndGet() < 3
                ? Future.failedFuture("not yet")
                : Future.succeededFuture(),
        () -> {
          undone.incrementAndGet();
          return Future.succeededFuture();
        },
        () -> false,
        5);
    await().atMost(Duration.ofSeconds(5)).until(() -> attempts.get() == 3);
    assertThat(undone.get()).isEqualTo(2);
    await().during(Duration.ofMillis(200)).until(() -> attempts.get() == 3);
  }

  @Test
  void nothingIsTriedOnceStopped() {
    AtomicInteger attempts = new AtomicInteger();
    AtomicBoolean stopped = new AtomicBoolean();
    RetryUntilDone.run(
        vertx,
        "test step",
        () -> {
          attempts.incrementAndGet();
          stopped.set(true);
          return Future.failedFuture("down");
        },
        Future::succeededFuture,
        stopped::get,
        5);
    await().during(Duration.ofMillis(300)).until(() -> attempts.get() == 1);
  }
}
