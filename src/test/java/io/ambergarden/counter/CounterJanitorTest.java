package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class CounterJanitorTest {
  @Test
  void onlyDaysTheStatsEndpointNoLongerServesAreDeleted() {
    // the endpoint serves days back to today - (retention days + 1); the janitor starts two days
    // further back
    LocalDate today = LocalDate.of(2026, 12, 3);
    var due = new CounterJanitor().due(today, Duration.ofDays(180));
    LocalDate oldestServed = today.minusDays(181);
    assertThat(due).hasSize(CounterJanitor.WINDOW_DAYS);
    assertThat(due).allSatisfy(d -> assertThat(d).isBefore(oldestServed.minusDays(1)));
    assertThat(due.get(due.size() - 1)).isEqualTo(oldestServed.minusDays(2));
  }
}
