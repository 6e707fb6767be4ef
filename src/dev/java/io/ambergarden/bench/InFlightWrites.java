package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Async prepared writes with a fixed number in flight; the first failure stops the loop that uses
 * it.
 */
final class InFlightWrites {
  private final CqlSession session;
  private final int concurrency;
  private final Semaphore permits;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicLong rows = new AtomicLong();

  InFlightWrites(CqlSession session, int concurrency) {
    this.session = session;
    this.concurrency = concurrency;
    this.permits = new Semaphore(concurrency);
  }

  /** Blocks while {@code concurrency} writes are in flight. */
  void submit(BoundStatement statement) throws InterruptedException {
    submit(statement, 1);
  }

  /** A statement carrying {@code rowCount} rows (a batch); blocks as above. */
  void submit(Statement<?> statement, int rowCount) throws InterruptedException {
    throwIfFailed();
    permits.acquire();
    session
        .executeAsync(
            statement.setIdempotent(true).setConsistencyLevel(DefaultConsistencyLevel.LOCAL_QUORUM))
        .whenComplete(
            (rs, err) -> {
              if (err != null) {
                failure.compareAndSet(null, err);
              } else {
                rows.addAndGet(rowCount);
              }
              permits.release();
            });
  }

  /** Waits for every submitted write; returns the rows written so far. */
  long awaitAll() throws InterruptedException {
    permits.acquire(concurrency);
    permits.release(concurrency);
    throwIfFailed();
    return rows.get();
  }

  private void throwIfFailed() {
    if (failure.get() != null) {
      throw new IllegalStateException("write failed", failure.get());
    }
  }
}
