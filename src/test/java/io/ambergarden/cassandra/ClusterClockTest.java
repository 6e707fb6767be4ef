package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClusterClockTest {
  final AtomicLong wall = new AtomicLong(1_000_000);
  final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  final ClusterClock clock = new ClusterClock(wall::get, nanos::get, 60_000);

  @Test
  void beforeTheFirstSyncItIsTheWallClock() {
    assertThat(clock.synced()).isFalse();
    assertThat(clock.millis()).isEqualTo(1_000_000);
  }

  @Test
  void aSyncedClockIsTheClustersTimeAndIgnoresJumpsOfTheWallClock() {
    // this machine is 74 s ahead of the cluster
    clock.sync(-74_000);
    assertThat(clock.millis()).isEqualTo(1_000_000 - 74_000);
    nanos.addAndGet(2_000_000_000L);
    wall.addAndGet(2_000);
    assertThat(clock.millis()).isEqualTo(1_000_000 - 74_000 + 2_000);
    // the wall clock jumps 127 s back: the cluster's time goes on
    wall.addAndGet(-127_000);
    nanos.addAndGet(1_000_000_000L);
    assertThat(clock.millis()).isEqualTo(1_000_000 - 74_000 + 3_000);
    // the next sync measures against the jumped wall clock and agrees
    clock.sync(54_000);
    assertThat(clock.millis()).isEqualTo(wall.get() + 54_000);
    assertThat(clock.millis()).isEqualTo(1_000_000 - 74_000 + 3_000);
  }

  @Test
  void aSyncOlderThanItsMaxAgeFallsBackToTheWallClock() {
    clock.sync(10_000);
    nanos.addAndGet(60_000_000_000L);
    assertThat(clock.synced()).isTrue();
    nanos.addAndGet(1_000_000L);
    assertThat(clock.synced()).isFalse();
    assertThat(clock.millis()).isEqualTo(wall.get());
  }
}
