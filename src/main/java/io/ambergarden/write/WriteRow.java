package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import java.util.List;

/** Statements of one write request, before they are grouped and sent. */
final class WriteRow {
  private WriteRow() {}

  /** A single-partition write and what to do once it is written. */
  record Single(String kind, BoundStatement statement, Runnable onWritten) {
    Single(String kind, BoundStatement statement) {
      this(kind, statement, () -> {});
    }
  }

  /** Several rows of one partition, sent as one unlogged batch. */
  record Batch(String kind, List<BatchableStatement<?>> statements) {}
}
