package io.ambergarden.bench;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import io.ambergarden.cassandra.ReplicaBatches;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.config.AmberConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * (a'), the raw driver with the best batching the driver allows, under the writer's limits: per
 * window of {@code window} events (the consumer's write batch), the rows of one partition (detail,
 * by-type) as unlogged batches of at most {@code batchMaxRows}, the latest state once per device,
 * and the single-partition rows (latest, abnormal, bucket index, and a detail or by-type
 * partition's only row) grouped by replica set into unlogged batches of at most {@code
 * groupMaxPartitions} partitions and {@code groupMaxBytes}. The same rows as (a), fewer requests:
 * the ceiling the service's writer is measured against.
 */
final class GroupedWriteLoop {
  private final CqlSession session;
  private final RawWriteLoop rows;
  private final CqlIdentifier keyspace;
  private final int window;
  private final int batchMaxRows;
  private final int groupMaxPartitions;
  private final int groupMaxBytes;
  private final AtomicLong eventsSubmitted = new AtomicLong();

  /** Read once, on the first window: the ring does not change during a bench. */
  private TokenMap tokens;

  GroupedWriteLoop(
      CqlSession session,
      RawWriteLoop rows,
      String keyspace,
      int window,
      int batchMaxRows,
      int groupMaxPartitions,
      int groupMaxBytes) {
    this.session = session;
    this.rows = rows;
    this.keyspace = CqlIdentifier.fromInternal(keyspace);
    this.window = window;
    this.batchMaxRows = batchMaxRows;
    this.groupMaxPartitions = groupMaxPartitions;
    this.groupMaxBytes = groupMaxBytes;
  }

  /**
   * The service's rows, batched with the writer's and the consumer's settings in {@code config}.
   */
  static GroupedWriteLoop asConfigured(CqlSession session, String keyspace, AmberConfig config) {
    RawWriteLoop rows =
        new RawWriteLoop(
            session, keyspace, config.cassandra().typeSalts(), config.cassandra().abnormalSalts());
    return new GroupedWriteLoop(
        session,
        rows,
        keyspace,
        config.kafka().writeBatch(),
        config.writer().batchMaxRows(),
        config.writer().groupMaxPartitions(),
        config.writer().groupMaxBytes());
  }

  long eventsSubmitted() {
    return eventsSubmitted.get();
  }

  RawWriteLoop.Result run(List<BenchEvents.Spec> events, int concurrency)
      throws InterruptedException {
    InFlightWrites writes = new InFlightWrites(session, concurrency);
    Set<String> indexed = new HashSet<>();
    long t0 = System.nanoTime();
    for (int from = 0; from < events.size(); from += window) {
      submitWindow(
          events.subList(from, Math.min(events.size(), from + window)),
          writes,
          indexed,
          Tables.ALL);
    }
    long written = writes.awaitAll();
    return new RawWriteLoop.Result(events.size(), written, (System.nanoTime() - t0) / 1e9);
  }

  /** Which of the service's rows a window writes: all of them, or only a floor's share. */
  enum Tables {
    DETAIL,
    /** The detail row with its columns in one blob, in a table of its own. */
    PACKED,
    DETAIL_AND_TYPE,
    ALL
  }

  /**
   * Submits the rows of one window of events (at most {@link #window}) as the writer would batch
   * them; a (device, bucket) already in {@code indexed} gets no bucket-index row again.
   */
  void submitWindow(
      List<BenchEvents.Spec> w, InFlightWrites writes, Set<String> indexed, Tables tables)
      throws InterruptedException {
    if (tokens == null) {
      tokens = session.getMetadata().getTokenMap().orElseThrow();
    }
    Map<String, List<BoundStatement>> partitions = new LinkedHashMap<>();
    Map<String, BenchEvents.Spec> newest = new LinkedHashMap<>();
    List<BoundStatement> singles = new ArrayList<>();
    for (BenchEvents.Spec e : w) {
      long bucket = RawWriteLoop.bucketOf(e);
      partitions
          .computeIfAbsent("d/" + e.deviceId() + "/" + bucket, k -> new ArrayList<>())
          .add(tables == Tables.PACKED ? rows.packed(e) : rows.detail(e));
      if (tables == Tables.DETAIL || tables == Tables.PACKED) {
        continue;
      }
      partitions
          .computeIfAbsent(
              "t/" + e.deviceType() + "/" + bucket + "/" + rows.typeSaltOf(e),
              k -> new ArrayList<>())
          .add(rows.byType(e));
      if (tables == Tables.DETAIL_AND_TYPE) {
        continue;
      }
      newest.merge(e.deviceId(), e, (a, b) -> a.ts() >= b.ts() ? a : b);
      if (e.abnormal()) {
        singles.add(rows.abnormal(e));
      }
      if (indexed.add(e.deviceId() + "/" + bucket)) {
        singles.add(rows.bucket(e));
      }
    }
    newest.values().forEach(e -> singles.add(rows.latest(e)));
    for (List<BoundStatement> partition : partitions.values()) {
      if (partition.size() == 1) {
        // as the writer does: a partition's only row joins its replicas' group
        singles.add(partition.get(0));
        continue;
      }
      for (int i = 0; i < partition.size(); i += batchMaxRows) {
        submit(writes, partition.subList(i, Math.min(partition.size(), i + batchMaxRows)));
      }
    }
    for (List<BoundStatement> group :
        ReplicaBatches.group(
            singles,
            s -> ReplicaLocator.replicasOf(tokens, keyspace, s),
            ReplicaLocator::sizeOf,
            groupMaxPartitions,
            groupMaxBytes)) {
      submit(writes, group);
    }
    eventsSubmitted.addAndGet(w.size());
  }

  private static void submit(InFlightWrites writes, List<BoundStatement> statements)
      throws InterruptedException {
    if (statements.size() == 1) {
      writes.submit(statements.get(0));
    } else {
      writes.submit(
          BatchStatement.newInstance(BatchType.UNLOGGED).addAll(statements), statements.size());
    }
  }
}
