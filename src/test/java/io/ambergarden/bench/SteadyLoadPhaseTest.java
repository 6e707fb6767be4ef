package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SteadyLoadPhaseTest {
  @Test
  void aLevelsLineNamesEachProcessWithWholeMillisecondsAndLeavesTheHarnessApart() {
    String line =
        SteadyLoadPhase.perProcess(
            Map.of(
                "service",
                68.9,
                "harness",
                43.77,
                "Kafka",
                39.27,
                "Cassandra",
                241.98939377440675));

    assertThat(line).isEqualTo("Cassandra 242, Kafka 39, service 69");
  }
}
