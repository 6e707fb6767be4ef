package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.k8s.MonitoringManifests;
import io.ambergarden.localrt.RealServers;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every metric the alert rules and the Grafana dashboard (k8s/monitoring) query is one the service
 * really exports: read from its /metrics after it ingested, wrote and committed an event.
 */
@ExtendWith(RealServers.class)
@Timeout(180)
class MonitoringIT {
  @Test
  void everyMetricTheAlertsAndTheDashboardUseIsExported() throws Exception {
    Set<String> used = MonitoringManifests.usedMetricNames();
    assertThat(used).hasSizeGreaterThan(15);
    String device = "mon-" + UUID.randomUUID().toString().substring(0, 8);
    try (TestService s = TestService.start(Map.of())) {
      String body =
          "{\"deviceId\":\""
              + device
              + "\",\"ts\":"
              + (System.currentTimeMillis() - 1000)
              + ",\"status\":\"ok\",\"code\":200,\"metrics\":{\"t\":1.5}}";
      assertThat(s.postEvents(body).statusCode()).isEqualTo(202);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Kafkas.committedTotal(s.config().kafka().groupId(), s.topic()) == 1);
      // the lag gauge appears with the consumer's first observation (every 5 s)
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.get("/metrics").body().contains("amber_kafka_consumer_lag{"));
      Set<String> exported = MonitoringManifests.exportedNames(s.get("/metrics").body());
      Set<String> missing = new TreeSet<>(used);
      missing.removeAll(exported);
      assertThat(missing)
          .as("metrics used by k8s/monitoring that the service does not export (of %s)", used)
          .isEmpty();
    }
  }
}
