package io.ambergarden;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.kafka.KafkaTopics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.admin.KafkaAdminClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What startup asks of Kafka before anything consumes or produces: the cluster, and the topics. */
final class KafkaStartChecks {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaStartChecks.class);

  private KafkaStartChecks() {}

  /**
   * Refused credentials or an untrusted broker certificate stop startup at once; an unreachable
   * broker does not (readiness waits for it).
   */
  static Future<Void> check(Vertx vertx, AmberConfig config) {
    KafkaAdminClient admin = KafkaAdminClient.create(vertx, KafkaSettings.admin(config.kafka()));
    return admin
        .describeCluster()
        .<Void>mapEmpty()
        .recover(
            err -> {
              StartupFailure f = StartupFailure.of(err);
              if (f.known()) {
                return Future.failedFuture(f);
              }
              LOG.warn("Kafka not reachable yet ({}); readiness waits for it", err.toString());
              return Future.succeededFuture();
            })
        .eventually(() -> admin.close(2000));
  }

  static Future<Void> createTopics(Vertx vertx, AmberConfig config) {
    KafkaAdminClient admin = KafkaAdminClient.create(vertx, KafkaSettings.admin(config.kafka()));
    return KafkaTopics.ensure(
            admin, config.kafka(), config.live().enabled() ? config.live().topic() : null)
        .eventually(() -> admin.close(2000));
  }
}
