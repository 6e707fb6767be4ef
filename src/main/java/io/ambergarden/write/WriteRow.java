package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/** Statements of one write request, before they are grouped and sent. */
final class WriteRow {
  private WriteRow() {}

  /**
   * A single-partition write and what to do once it is written. {@code at} is the time its
   * successful attempt was sent; a row may be rebound for it ({@link #rebind}).
   */
  record Single(
      String kind,
      BoundStatement statement,
      LongFunction<BoundStatement> rebind,
      LongConsumer onWritten) {
    Single(String kind, BoundStatement statement) {
      this(kind, statement, at -> statement, at -> {});
    }

    Single(String kind, BoundStatement statement, Runnable onWritten) {
      this(kind, statement, at -> statement, at -> onWritten.run());
    }
  }

  /** Several rows of one partition, sent as one unlogged batch. */
  record Batch(String kind, List<BatchableStatement<?>> statements) {}
}
