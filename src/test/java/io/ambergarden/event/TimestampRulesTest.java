package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimestampRulesTest {

  @Test
  void durationsUseTheLargestWholeUnit() {
    assertThat(TimestampRules.duration(180L * 86_400_000L)).isEqualTo("180 days");
    assertThat(TimestampRules.duration(86_400_000L)).isEqualTo("1 day");
    assertThat(TimestampRules.duration(2L * 3_600_000L)).isEqualTo("2 hours");
    assertThat(TimestampRules.duration(90_000L * 60)).isEqualTo("90 minutes");
    assertThat(TimestampRules.duration(1_000L)).isEqualTo("1 second");
    assertThat(TimestampRules.duration(1_500L)).isEqualTo("1500 ms");
    assertThat(TimestampRules.duration(0L)).isEqualTo("0 days");
  }
}
