package io.ambergarden.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReadMetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ReadMeters meters = new ReadMeters(registry);

  private Timer timer(String stage, String read) {
    return registry.find("amber.read.latency").tag("stage", stage).tag("read", read).timer();
  }

  @Test
  void eachStageRecordsUnderItsReadName() {
    meters.answered("amber.query.device-events", TimeUnit.MILLISECONDS.toNanos(30));
    meters.answered("amber.query.device-events", TimeUnit.MILLISECONDS.toNanos(10));
    meters.queried("amber.query.device-latest", TimeUnit.MILLISECONDS.toNanos(7));
    meters.cassandraRead(TimeUnit.MILLISECONDS.toNanos(2));

    Timer http = timer("http", "device-events");
    assertThat(http.count()).isEqualTo(2);
    assertThat(http.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(40.0);
    assertThat(http.max(TimeUnit.MILLISECONDS)).isEqualTo(30.0);
    assertThat(timer("query", "device-latest").count()).isEqualTo(1);
    assertThat(timer("cassandra", "cql").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2.0);
    assertThat(timer("query", "device-events")).as("nothing recorded, nothing registered").isNull();
  }

  @Test
  void anAddressOutsideTheQueryPrefixKeepsItsWholeName() {
    assertThat(ReadMeters.readName("amber.query.fleet")).isEqualTo("fleet");
    assertThat(ReadMeters.readName("amber.media.get")).isEqualTo("amber.media.get");
  }

  @Test
  void speculativeExecutionsCountOnlyWhenThereAreAny() {
    meters.speculativeExecutions(0);
    meters.speculativeExecutions(2);
    assertThat(
            registry
                .find("amber.cassandra.speculative.executions")
                .tag("statement", "read")
                .counter()
                .count())
        .isEqualTo(2.0);
  }

  @Test
  void prometheusGetsBucketsSoPercentilesAddUpAcrossPods() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ReadMeters(prometheus).answered("amber.query.fleet", TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(prometheus.scrape())
        .containsPattern(
            "amber_read_latency_seconds_bucket\\{[^}]*read=\"fleet\",stage=\"http\"[^}]*\\} 1");
  }
}
