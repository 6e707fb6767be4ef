package io.ambergarden.ingest;

import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import io.vertx.kafka.admin.KafkaAdminClient;
import io.vertx.kafka.admin.NewTopic;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the input and dead-letter topics when they are missing (dev and tests). */
public final class KafkaTopics {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTopics.class);

  private KafkaTopics() {
  }

  public static Future<Void> ensure(KafkaAdminClient admin, AmberConfig.Kafka cfg) {
    return admin.listTopics().compose(existing -> {
      List<NewTopic> missing = List.of(cfg.topic(), cfg.dlqTopic()).stream()
          .filter(t -> !existing.contains(t))
          .map(t -> new NewTopic(t, cfg.topicPartitions(), cfg.topicReplication())
              .setConfig(Map.of("min.insync.replicas", Integer.toString(Math.max(1, cfg.topicReplication() - 1)))))
          .toList();
      if (missing.isEmpty()) {
        return Future.succeededFuture();
      }
      LOG.info("creating topics {}", missing.stream().map(NewTopic::getName).toList());
      return admin.createTopics(missing).recover(err ->
          // another instance may have created them meanwhile
          err.getClass().getSimpleName().equals("TopicExistsException") || String.valueOf(err.getMessage()).contains("already exists")
              ? Future.succeededFuture() : Future.failedFuture(err));
    });
  }
}
