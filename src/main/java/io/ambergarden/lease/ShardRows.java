package io.ambergarden.lease;

import io.vertx.core.Future;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The lease rows of a scan's shards, created with {@code IF NOT EXISTS} until once they all were.
 *
 * <p>Instances that start together race to create the same rows, and a contended LWT can end in a
 * timeout with an unknown outcome. A start never fails for that: the scan creates what is still
 * missing before it reads the rows.
 */
public final class ShardRows {
  private final Supplier<Future<?>> createMissing;
  private boolean created;

  /** {@code createMissing} writes every row with {@code IF NOT EXISTS}, so it may run again. */
  public ShardRows(Supplier<Future<?>> createMissing) {
    this.createMissing = createMissing;
  }

  /** Creates the rows unless they all were; fails as the creates do. */
  public Future<Void> ensure() {
    if (created) {
      return Future.succeededFuture();
    }
    return createMissing.get().onSuccess(v -> created = true).mapEmpty();
  }

  /** As {@link #ensure()}, but a failure is logged and left to the next scan. */
  public Future<Void> ensureAtStart(Logger log, String scan) {
    return ensure()
        .otherwise(
            err -> {
              log.warn(
                  "{} shard rows not all created yet ({}); retried at the next scan",
                  scan,
                  err.toString());
              return null;
            });
  }

  public boolean created() {
    return created;
  }
}
