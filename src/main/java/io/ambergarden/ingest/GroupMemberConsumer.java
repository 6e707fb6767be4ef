package io.ambergarden.ingest;

import io.vertx.core.Context;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native consumer under the Vert.x read stream, adding what the stream cannot do (its rebalance
 * handlers run later on the event loop, once the partitions are gone):
 *
 * <ul>
 *   <li>a synchronous rebalance listener: on revoke, the event loop stops work on the partitions
 *       and hands back their finished offsets, which are committed before the partitions leave;
 *   <li>commits limited to the partitions still owned when the commit runs, so a commit queued
 *       before a rebalance cannot move the new owner's offset back;
 *   <li>every blocking call bounded by {@code apiTimeout}, so nothing queued on the consumer's
 *       thread can hold poll() back for long;
 *   <li>pausing applied to the partitions owned at that moment ({@link PartitionHold}), before
 *       every poll and as partitions are assigned, so a new partition never delivers a record while
 *       the consumer is paused;
 *   <li>every completed rebalance reported, also one that assigned nothing: a member with no
 *       partitions (more pods than partitions) has joined all the same.
 * </ul>
 *
 * Everything here runs on the consumer's thread (the read stream's worker).
 */
final class GroupMemberConsumer extends KafkaConsumer<byte[], byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(GroupMemberConsumer.class);

  /** The event-loop side of a rebalance; each method is called on the event loop. */
  interface Partitions {
    void assigned(Collection<TopicPartition> partitions);

    /** Stops work on the partitions; returns the offsets to commit for them (may be empty). */
    Map<TopicPartition, Long> revoked(Collection<TopicPartition> partitions);

    /** Taken away without a chance to commit (the group moved on without this member). */
    void lost(Collection<TopicPartition> partitions);
  }

  private final Context context;
  private final Partitions partitions;
  private final Duration apiTimeout;
  private final PartitionHold hold;
  private volatile boolean closing;

  GroupMemberConsumer(
      Map<String, String> config,
      Context context,
      Partitions partitions,
      Duration apiTimeout,
      PartitionHold hold) {
    super(
        new HashMap<String, Object>(config),
        new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    this.context = context;
    this.partitions = partitions;
    this.apiTimeout = apiTimeout;
    this.hold = hold;
  }

  /** From now on a revoke commits nothing: the owner has made its final commit. */
  void closing() {
    closing = true;
  }

  @Override
  public void subscribe(Collection<String> topics, ConsumerRebalanceListener streamListener) {
    super.subscribe(topics, listener(streamListener));
  }

  @Override
  public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
    hold.apply(this);
    return super.poll(timeout);
  }

  ConsumerRebalanceListener listener(ConsumerRebalanceListener streamListener) {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> tps) {
        commitOnRevoke(tps);
        streamListener.onPartitionsRevoked(tps);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> tps) {
        if (!tps.isEmpty() && !closing) {
          LOG.warn("partitions lost without a commit: {}", tps);
          tell(p -> p.lost(List.copyOf(tps)));
        }
        streamListener.onPartitionsLost(tps);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> tps) {
        if (!tps.isEmpty()) {
          hold.apply(GroupMemberConsumer.this);
        }
        tell(p -> p.assigned(List.copyOf(tps)));
        streamListener.onPartitionsAssigned(tps);
      }
    };
  }

  private void commitOnRevoke(Collection<TopicPartition> tps) {
    if (tps.isEmpty()) {
      return;
    }
    List<TopicPartition> revoked = List.copyOf(tps);
    if (closing) {
      return; // the owner drained and committed before closing; nothing is running any more
    }
    CompletableFuture<Map<TopicPartition, Long>> finished = onEventLoop(p -> p.revoked(revoked));
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    try {
      finished
          .get(apiTimeout.toMillis(), TimeUnit.MILLISECONDS)
          .forEach((tp, off) -> offsets.put(tp, new OffsetAndMetadata(off)));
    } catch (TimeoutException e) {
      LOG.warn("event loop did not hand over the offsets of {} in time; not committing", revoked);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      LOG.warn("could not collect the offsets of {}: {}", revoked, e.toString());
      return;
    }
    if (offsets.isEmpty()) {
      LOG.info("revoked {}; nothing new to commit", revoked);
      return;
    }
    try {
      super.commitSync(offsets, apiTimeout);
      LOG.info("revoked {}; committed {}", revoked, offsets);
    } catch (RuntimeException e) {
      // the new owner then starts from the previous commit: duplicates, never a loss
      LOG.warn("commit on revoke of {} failed: {}", revoked, e.toString());
    }
  }

  private void tell(java.util.function.Consumer<Partitions> call) {
    context.runOnContext(v -> call.accept(partitions));
  }

  private <T> CompletableFuture<T> onEventLoop(Function<Partitions, T> call) {
    CompletableFuture<T> f = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          try {
            f.complete(call.apply(partitions));
          } catch (Throwable t) {
            f.completeExceptionally(t);
          }
        });
    return f;
  }

  /** The stream's commit: only owned partitions, and bounded in time. */
  @Override
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
    Set<TopicPartition> owned = assignment();
    Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
    offsets.forEach(
        (tp, om) -> {
          if (owned.contains(tp)) {
            mine.put(tp, om);
          }
        });
    if (!mine.isEmpty()) {
      super.commitSync(mine, apiTimeout);
    }
  }

  @Override
  public void close() {
    super.close(apiTimeout);
  }
}
