package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.metrics.AmberMeters;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer lag per assigned partition: end offset minus the group's committed offset, read with an
 * admin client of its own. Nothing here touches the consumer's thread, each call is bounded by
 * {@code timeout}, and a round is skipped while the previous one is outstanding, so a broker outage
 * cannot delay poll().
 */
final class LagObserver {
  private static final Logger LOG = LoggerFactory.getLogger(LagObserver.class);

  private final Vertx vertx;
  private final Context context;
  private final AmberMeters meters;
  private final String group;
  private final int timeoutMs;
  private final Admin admin;
  private boolean outstanding;

  LagObserver(Vertx vertx, AmberConfig.Kafka cfg, AmberMeters meters, Duration timeout) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.meters = meters;
    this.group = cfg.groupId();
    this.timeoutMs = (int) timeout.toMillis();
    this.admin = Admin.create(new HashMap<String, Object>(KafkaSettings.admin(cfg)));
  }

  /** Observes the lag of {@code assigned}; {@code total} gets their sum once it is known. */
  void observe(Set<TopicPartition> assigned, LongConsumer total) {
    if (assigned.isEmpty()) {
      total.accept(0);
      return;
    }
    if (outstanding) {
      return;
    }
    outstanding = true;
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    assigned.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    var ends =
        onContext(admin.listOffsets(latest, new ListOffsetsOptions().timeoutMs(timeoutMs)).all());
    var committed =
        onContext(
            admin
                .listConsumerGroupOffsets(
                    group, new ListConsumerGroupOffsetsOptions().timeoutMs(timeoutMs))
                .partitionsToOffsetAndMetadata());
    Future.all(ends, committed)
        .onSuccess(
            v -> {
              long sum = 0;
              for (var e : ends.result().entrySet()) {
                OffsetAndMetadata c = committed.result().get(e.getKey());
                if (c != null) {
                  long lag = Math.max(0, e.getValue().offset() - c.offset());
                  meters.consumerLag(e.getKey().partition(), lag);
                  sum += lag;
                }
              }
              total.accept(sum);
            })
        .onFailure(err -> LOG.debug("lag not observed: {}", err.toString()))
        .onComplete((r, e) -> outstanding = false);
  }

  private <T> Future<T> onContext(KafkaFuture<T> f) {
    io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
    f.whenComplete(
        (v, err) ->
            context.runOnContext(
                x -> {
                  if (err != null) {
                    p.fail(err);
                  } else {
                    p.complete(v);
                  }
                }));
    return p.future();
  }

  Future<Void> close() {
    return vertx.executeBlocking(
        () -> {
          admin.close(Duration.ofMillis(timeoutMs));
          return null;
        });
  }
}
