package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AckLedgerTest {
  static final long HOUR = 3_600_000;
  static final long NOW = 100 * HOUR + 30_000;

  @Test
  void liveEventsTrailTheClockAreUniqueAndEveryTenthIsLateInTheClosedHour() {
    AtomicLong clock = new AtomicLong(NOW);
    AckLedger l = AckLedger.live(List.of("d0", "d1"), 98 * HOUR, 1000, 1, clock::get, 10);
    List<ChaosEvent> events = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      events.add(l.next());
      if (i % 3 == 0) {
        clock.addAndGet(1); // the clock moves slower than events are made
      }
    }
    assertThat(new HashSet<>(events.stream().map(ChaosEvent::ts).toList())).hasSize(100);
    for (int i = 0; i < events.size(); i++) {
      long ts = events.get(i).ts();
      if (i % 10 == 0) {
        assertThat(ts).isBetween(98 * HOUR, 99 * HOUR - 1);
      } else {
        assertThat(ts).isBetween(NOW - AckLedger.LIVE_LAG_MS, NOW + 100);
      }
    }
    // live events increase in send order, whatever the clock does
    List<Long> live =
        events.stream()
            .map(ChaosEvent::ts)
            .filter(ts -> ts >= NOW - AckLedger.LIVE_LAG_MS)
            .toList();
    assertThat(live).isSorted();
  }

  @Test
  void aNamedDevicesEventIsNeverLateSoAProbeBecomesItsDevicesLatest() {
    AckLedger l = AckLedger.live(List.of("d0"), 98 * HOUR, 1000, 1, () -> NOW, 10);
    for (int i = 0; i < 30; i++) {
      assertThat(l.next("probe").ts()).isGreaterThanOrEqualTo(NOW - AckLedger.LIVE_LAG_MS);
    }
  }

  @Test
  void aLiveLedgerCrossesAnHourWithTheClock() {
    AtomicLong clock = new AtomicLong(101 * HOUR - 1_000);
    AckLedger l = AckLedger.live(List.of("d0"), 98 * HOUR, 1000, 1, clock::get, 10);
    l.next(); // late
    long before = l.next().ts();
    clock.set(101 * HOUR + 5_000);
    long after = l.next().ts();
    assertThat(before / HOUR).isEqualTo(100);
    assertThat(after / HOUR).isEqualTo(101);
  }

  @Test
  void aLiveLedgerNeedsLateEventsSpacedAtLeastTwoApart() {
    assertThatThrownBy(() -> AckLedger.live(List.of("d0"), 0, 10, 1, () -> NOW, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
