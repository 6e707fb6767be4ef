package io.ambergarden.health;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.kafka.KafkaSettings;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.kafka.admin.KafkaAdminClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Probes Cassandra and Kafka once a second and records whether each is usable. */
public final class HealthProbeVerticle extends VerticleBase {
  private static final long PERIOD_MS = 1000;
  private static final long PROBE_TIMEOUT_MS = 2500;

  private final AmberConfig config;
  private final HealthState health;
  private CassandraClient cassandra;
  private KafkaAdminClient admin;
  private boolean cassandraBusy;
  private boolean kafkaBusy;

  public HealthProbeVerticle(AmberConfig config, HealthState health) {
    this.config = config;
    this.health = health;
  }

  @Override
  public Future<?> start() {
    cassandra = CassandraClients.shared(vertx, config.cassandra());
    admin = KafkaAdminClient.create(vertx, KafkaSettings.admin(config.kafka()));
    vertx.setPeriodic(0, PERIOD_MS, id -> probe());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    return admin.close(1000);
  }

  private void probe() {
    if (!cassandraBusy) {
      cassandraBusy = true;
      SimpleStatement ping =
          SimpleStatement.newInstance("SELECT release_version FROM system.local")
              .setTimeout(Duration.ofMillis(PROBE_TIMEOUT_MS))
              .setIdempotent(true);
      cassandra
          .execute(ping)
          .timeout(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .onComplete(
              ar -> {
                cassandraBusy = false;
                health.cassandraUsable(ar.succeeded());
              });
    }
    if (!kafkaBusy) {
      kafkaBusy = true;
      admin
          .describeCluster()
          .timeout(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .onComplete(
              ar -> {
                kafkaBusy = false;
                health.kafkaUsable(ar.succeeded() && !ar.result().getNodes().isEmpty());
              });
    }
  }
}
