package io.ambergarden.kafka;

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

  private KafkaTopics() {}

  public static Future<Void> ensure(
      KafkaAdminClient admin, AmberConfig.Kafka cfg, String liveTopic) {
    String minIsr = Integer.toString(Math.max(1, cfg.topicReplication() - 1));
    return admin
        .listTopics()
        .compose(
            existing -> {
              List<NewTopic> missing = new java.util.ArrayList<>();
              for (String t : List.of(cfg.topic(), cfg.dlqTopic())) {
                if (!existing.contains(t)) {
                  missing.add(
                      new NewTopic(t, cfg.topicPartitions(), cfg.topicReplication())
                          .setConfig(Map.of("min.insync.replicas", minIsr)));
                }
              }
              if (liveTopic != null && !existing.contains(liveTopic)) {
                // the live feed is transient: a client that was away longer resumes from Cassandra
                // with since=
                missing.add(
                    new NewTopic(liveTopic, 1, cfg.topicReplication())
                        .setConfig(
                            Map.of("retention.ms", "3600000", "min.insync.replicas", minIsr)));
              }
              if (missing.isEmpty()) {
                return Future.succeededFuture();
              }
              LOG.info("creating topics {}", missing.stream().map(NewTopic::getName).toList());
              return admin
                  .createTopics(missing)
                  .recover(
                      err ->
                          // another instance may have created them meanwhile
                          err.getClass().getSimpleName().equals("TopicExistsException")
                                  || String.valueOf(err.getMessage()).contains("already exists")
                              ? Future.succeededFuture()
                              : Future.failedFuture(err));
            });
  }
}
