package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * {@code executeWithFullFetch}, but handing over how many speculative executions the driver started
 * for the first page, which the Vert.x client's own full fetch drops.
 */
public final class FullFetch {
  private FullFetch() {}

  public static Future<List<Row>> of(
      CassandraClient client, Statement<?> statement, IntConsumer speculativeExecutions) {
    return client
        .execute(statement)
        .compose(
            rs -> {
              speculativeExecutions.accept(rs.getExecutionInfo().getSpeculativeExecutionCount());
              return rs.all();
            });
  }
}
