package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClockConfigTest {
  private static AmberConfig load(Map<String, String> env) {
    return ConfigLoader.load(env, new Properties(), Map.of());
  }

  @Test
  void theClockIsCheckedEvery30SecondsAgainstASkewOfOneSecondByDefault() {
    AmberConfig.Clock clock = load(Map.of()).clock();
    assertThat(clock.enabled()).isTrue();
    assertThat(clock.checkInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(clock.maxSkew()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void zeroTurnsTheCheckOff() {
    assertThat(load(Map.of("AMBER_CLOCK_CHECK_INTERVAL", "0s")).clock().enabled()).isFalse();
  }

  @Test
  void anIntervalLongerThanTwoMinutesIsRefusedSoTheClusterClockNeverFallsBackBetweenChecks() {
    assertThat(load(Map.of("AMBER_CLOCK_CHECK_INTERVAL", "2m")).clock().checkInterval())
        .isEqualTo(Duration.ofMinutes(2));
    assertThatThrownBy(() -> load(Map.of("AMBER_CLOCK_CHECK_INTERVAL", "3m")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("clock.check-interval:");
  }

  @Test
  void anIntervalBelowOneSecondOrANonPositiveSkewIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> load(Map.of("AMBER_CLOCK_CHECK_INTERVAL", "500ms")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("clock.check-interval:");
    assertThatThrownBy(() -> load(Map.of("AMBER_CLOCK_MAX_SKEW", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("clock.max-skew:");
  }
}
