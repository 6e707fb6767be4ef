package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.query.ExactCounts.DimensionCount;
import io.ambergarden.query.ExactCounts.HourCount;
import io.ambergarden.query.ExactCounts.ShardDay;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExactCountsTest {
  static final long H = 3_600_000L;
  static final LocalDate DAY = LocalDate.of(2026, 12, 3);
  static final long D0 = DAY.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  static final Duration GRACE = Duration.ofMinutes(2);

  /** Hour n of DAY (may run past the day: 24 is the next day's first hour). */
  static long hour(int n) {
    return D0 + n * H;
  }

  static HourCount dev(int hour, String name, long events) {
    return new HourCount(hour(hour), name, events);
  }

  static DimensionCount dim(int hour, String dimension, String value, long events) {
    return new DimensionCount(hour(hour), dimension, value, events);
  }

  static DimensionCount all(int hour, long events) {
    return dim(hour, "all", "", events);
  }

  // --- progress ---

  @Test
  void reconciledThroughIsTheLastHourBoundaryWhoseGraceEndedBeforeDoneUntil() {
    // 10:00 + 2 min = 10:02, strictly before 10:02:00.001
    assertThat(ExactCounts.reconciledThrough(hour(10) + 120_001, GRACE)).isEqualTo(hour(10));
    // 10:02 is not before 10:02: the hour ending at 10:00 is not known reconciled yet
    assertThat(ExactCounts.reconciledThrough(hour(10) + 120_000, GRACE)).isEqualTo(hour(9));
    assertThat(ExactCounts.reconciledThrough(hour(10) + 119_999, GRACE)).isEqualTo(hour(9));
    assertThat(ExactCounts.reconciledThrough(hour(11) - 1, GRACE)).isEqualTo(hour(10));
    assertThat(ExactCounts.reconciledThrough(hour(11), Duration.ZERO)).isEqualTo(hour(10));
    assertThat(ExactCounts.reconciledThrough(hour(11) + 1, Duration.ZERO)).isEqualTo(hour(11));
    assertThat(ExactCounts.reconciledThrough(null, GRACE)).isNull();
  }

  @Test
  void countedThroughIsTheLeastShardAndNullWhenAnyShardHasNone() {
    assertThat(ExactCounts.countedThrough(3, Map.of(0, 500L, 1, 300L, 2, 400L))).isEqualTo(300L);
    assertThat(ExactCounts.countedThrough(3, Map.of(0, 500L, 2, 400L))).isNull();
    Map<Integer, Long> withNull = new HashMap<>(Map.of(0, 500L, 2, 400L));
    withNull.put(1, null);
    assertThat(ExactCounts.countedThrough(3, withNull)).isNull();
    // rows of shards beyond rollup.shards are not counted in
    assertThat(ExactCounts.countedThrough(2, Map.of(0, 500L, 1, 600L, 2, 1L))).isEqualTo(500L);
    assertThat(ExactCounts.countedThrough(1, Map.of())).isNull();
  }

  @Test
  void progressKeepsEachShardsReconciledThroughAndLeavesShardsWithoutRowsUnknown() {
    Map<Integer, Long> done = new HashMap<>();
    done.put(0, hour(5) + 120_001);
    done.put(1, null);
    done.put(7, hour(9) + 120_001);
    ExactCounts.Progress p = ExactCounts.progress(3, done, Map.of(0, 10L, 1, 20L, 2, 30L), GRACE);
    assertThat(p.reconciledThrough(0)).isEqualTo(hour(5));
    assertThat(p.reconciledThrough(1)).isNull();
    assertThat(p.reconciledThrough(2)).isNull();
    assertThat(p.reconciledThrough(7)).isNull();
    assertThat(p.countedThrough()).isEqualTo(10L);
  }

  // --- one device ---

  @Test
  void deviceServesExactRowsUpToReconciledThroughAndApproximateRowsAfterIt() {
    long e = hour(10);
    ExactCounts.DeviceCounts c =
        ExactCounts.device(
            e,
            Set.of(),
            List.of(dev(8, "status:normal", 5), dev(9, "status:normal", 7)),
            List.of(
                dev(8, "status:normal", 9), // overcounted, but hour 8 is exact
                dev(9, "status:normal", 8), // hour 9 ends at E: exact
                dev(10, "status:normal", 3),
                dev(11, "status:fault", 2)));
    assertThat(c.byStatus()).containsExactlyInAnyOrderEntriesOf(Map.of("normal", 15L, "fault", 2L));
    assertThat(c.total()).isEqualTo(17);
    assertThat(c.exactThrough()).isEqualTo(e);
  }

  @Test
  void deviceIgnoresExactRowsOfHoursNotYetReconciled() {
    // a recompute wrote hours 10 and 11 before done_until moved: their approximate rows count
    ExactCounts.DeviceCounts c =
        ExactCounts.device(
            hour(10),
            Set.of(),
            List.of(dev(9, "none", 1), dev(10, "none", 100), dev(11, "none", 1000)),
            List.of(dev(10, "none", 4), dev(11, "none", 6)));
    assertThat(c.total()).isEqualTo(11);
    assertThat(c.byStatus()).isEmpty();
  }

  @Test
  void deviceReopenedHourInsideTheExactRangeIsServedApproximatelyAndMovesExactThroughBack() {
    ExactCounts.DeviceCounts c =
        ExactCounts.device(
            hour(10),
            Set.of(hour(3)),
            List.of(dev(2, "status:a", 10), dev(3, "status:a", 10), dev(4, "status:a", 10)),
            List.of(
                dev(2, "status:a", 99),
                dev(3, "status:a", 12), // the late events made it 12
                dev(4, "status:a", 99)));
    assertThat(c.byStatus()).containsExactlyEntriesOf(Map.of("a", 32L));
    assertThat(c.total()).isEqualTo(32);
    assertThat(c.exactThrough()).isEqualTo(hour(3));
  }

  @Test
  void deviceReopenedHourAfterReconciledThroughLeavesExactThroughThere() {
    ExactCounts.DeviceCounts c =
        ExactCounts.device(hour(10), Set.of(hour(12)), List.of(), List.of(dev(12, "none", 3)));
    assertThat(c.exactThrough()).isEqualTo(hour(10));
    assertThat(c.total()).isEqualTo(3);
  }

  @Test
  void deviceWithoutShardProgressIsServedFromApproximateRowsOnly() {
    ExactCounts.DeviceCounts c =
        ExactCounts.device(
            null,
            Set.of(hour(1)),
            List.of(dev(0, "status:a", 50)),
            List.of(dev(0, "status:a", 2), dev(1, "status:a", 3)));
    assertThat(c.total()).isEqualTo(5);
    assertThat(c.exactThrough()).isNull();
  }

  @Test
  void deviceTotalCountsEventsWithoutStatusWhichByStatusLeavesOut() {
    ExactCounts.DeviceCounts c =
        ExactCounts.device(
            hour(5),
            Set.of(),
            List.of(dev(1, "none", 4), dev(1, "status:fault", 1), dev(2, "status:fault", 2)),
            List.of(dev(6, "none", 1), dev(6, "status:normal", 3)));
    assertThat(c.total()).isEqualTo(11);
    assertThat(c.byStatus()).containsExactlyInAnyOrderEntriesOf(Map.of("fault", 3L, "normal", 3L));
  }

  @Test
  void deviceWithNoRowsHasNothing() {
    ExactCounts.DeviceCounts c = ExactCounts.device(hour(5), Set.of(), List.of(), List.of());
    assertThat(c.total()).isZero();
    assertThat(c.byStatus()).isEmpty();
    assertThat(c.exactThrough()).isEqualTo(hour(5));
  }

  @Test
  void deviceApproximateDaysRunFromTheDayOfReconciledThroughPlusReopenedDays() {
    LocalDate oldest = DAY.minusDays(10);
    LocalDate newest = DAY.plusDays(2);
    assertThat(ExactCounts.deviceApproxDays(hour(5), Set.of(), oldest, newest))
        .containsExactly(DAY, DAY.plusDays(1), DAY.plusDays(2));
    assertThat(
            ExactCounts.deviceApproxDays(
                hour(5), Set.of(hour(-24 * 3), hour(-24 * 3 + 2), hour(1)), oldest, newest))
        .containsExactly(DAY.minusDays(3), DAY, DAY.plusDays(1), DAY.plusDays(2));
    // reopened hours beyond the retention have no approximate partitions left
    assertThat(ExactCounts.deviceApproxDays(hour(5), Set.of(hour(-24 * 20)), oldest, newest))
        .containsExactly(DAY, DAY.plusDays(1), DAY.plusDays(2));
    // no progress, or progress older than the retention: every day of the retention
    assertThat(ExactCounts.deviceApproxDays(null, Set.of(), oldest, newest)).hasSize(13);
    assertThat(ExactCounts.deviceApproxDays(hour(-24 * 30), Set.of(), oldest, newest))
        .hasSize(13)
        .startsWith(oldest);
    // E at midnight: the previous day is all exact
    assertThat(ExactCounts.deviceApproxDays(hour(24), Set.of(), oldest, newest))
        .containsExactly(DAY.plusDays(1), DAY.plusDays(2));
  }

  // --- day stats ---

  @Test
  void daySumsExactHoursBeforeReconciledThroughAndApproximateHoursAfterItPerDimension() {
    ShardDay s =
        new ShardDay(
            hour(10),
            Set.of(),
            List.of(
                all(8, 5),
                dim(8, "code", "500", 2),
                dim(8, "status", "fault", 2),
                dim(8, "type", "pump", 5),
                all(9, 1),
                dim(9, "code", "200", 1)),
            List.of(
                all(8, 50), // exact hour: its counter is ignored
                dim(8, "code", "500", 20),
                all(10, 3),
                dim(10, "code", "500", 1),
                dim(10, "type", "pump", 3),
                dim(10, "status", "normal", 3),
                dim(10, "unknown", "x", 9)));
    StatusStatsQuery.Day d = ExactCounts.day(DAY, List.of(s));
    assertThat(d.counts().total()).isEqualTo(9);
    assertThat(d.counts().byCode())
        .containsExactlyInAnyOrderEntriesOf(Map.of("500", 3L, "200", 1L));
    assertThat(d.counts().byStatus())
        .containsExactlyInAnyOrderEntriesOf(Map.of("fault", 2L, "normal", 3L));
    assertThat(d.counts().byType()).containsExactlyEntriesOf(Map.of("pump", 8L));
    assertThat(d.exactThrough()).isEqualTo(hour(10));
  }

  @Test
  void dayIgnoresExactRowsOfHoursNotYetReconciled() {
    ShardDay s =
        new ShardDay(
            hour(10), Set.of(), List.of(all(9, 1), all(10, 70), all(11, 80)), List.of(all(10, 7)));
    assertThat(ExactCounts.day(DAY, List.of(s)).counts().total()).isEqualTo(8);
  }

  @Test
  void dayReopenedHourIsServedFromItsCounterAndMovesExactThroughBack() {
    ShardDay s =
        new ShardDay(
            hour(20),
            Set.of(hour(4)),
            List.of(all(3, 10), all(4, 10), all(5, 10)),
            List.of(all(3, 11), all(4, 13), all(5, 11), all(21, 1)));
    StatusStatsQuery.Day d = ExactCounts.day(DAY, List.of(s));
    assertThat(d.counts().total()).isEqualTo(34);
    assertThat(d.exactThrough()).isEqualTo(hour(4));
  }

  @Test
  void daySumsShardsEachWithItsOwnProgressAndTakesTheEarliestExactThrough() {
    ShardDay early =
        new ShardDay(
            hour(6), Set.of(), List.of(all(5, 1), all(6, 100)), List.of(all(5, 9), all(6, 2)));
    ShardDay late =
        new ShardDay(
            hour(9), Set.of(), List.of(all(5, 4), all(6, 4)), List.of(all(5, 9), all(6, 9)));
    StatusStatsQuery.Day d = ExactCounts.day(DAY, List.of(early, late));
    assertThat(d.counts().total()).isEqualTo(1 + 2 + 4 + 4);
    assertThat(d.exactThrough()).isEqualTo(hour(6));
  }

  @Test
  void dayExactThroughIsClampedToTheDay() {
    // reconciled beyond the day: all of it is exact
    assertThat(ExactCounts.day(DAY, List.of(shard(hour(30)))).exactThrough()).isEqualTo(hour(24));
    assertThat(ExactCounts.day(DAY, List.of(shard(hour(24)))).exactThrough()).isEqualTo(hour(24));
    // reconciled only before the day, or never: none of it is
    assertThat(ExactCounts.day(DAY, List.of(shard(hour(-5)))).exactThrough()).isEqualTo(D0);
    assertThat(ExactCounts.day(DAY, List.of(shard(null))).exactThrough()).isEqualTo(D0);
    assertThat(ExactCounts.day(DAY, List.of(shard(hour(30)), shard(null))).exactThrough())
        .isEqualTo(D0);
    // a reopened hour of the day pulls a shard reconciled beyond the day back into it
    ShardDay reopened = new ShardDay(hour(30), Set.of(hour(13)), List.of(), List.of());
    assertThat(ExactCounts.day(DAY, List.of(shard(hour(30)), reopened)).exactThrough())
        .isEqualTo(hour(13));
  }

  @Test
  void dayWithoutShardProgressIsServedFromCountersOnly() {
    ShardDay s = new ShardDay(null, Set.of(), List.of(all(1, 40)), List.of(all(1, 2), all(2, 3)));
    assertThat(ExactCounts.day(DAY, List.of(s)).counts().total()).isEqualTo(5);
  }

  @Test
  void dayReadsOnlyThePartitionsThatCanServeAnHour() {
    // the whole day reconciled: exact rows only, unless an hour is reopened
    assertThat(ExactCounts.dayNeedsExact(DAY, hour(24))).isTrue();
    assertThat(ExactCounts.dayNeedsApprox(DAY, hour(24), Set.of())).isFalse();
    assertThat(ExactCounts.dayNeedsApprox(DAY, hour(30), Set.of())).isFalse();
    assertThat(ExactCounts.dayNeedsApprox(DAY, hour(24), Set.of(hour(3)))).isTrue();
    // partly reconciled: both
    assertThat(ExactCounts.dayNeedsExact(DAY, hour(23))).isTrue();
    assertThat(ExactCounts.dayNeedsApprox(DAY, hour(23), Set.of())).isTrue();
    assertThat(ExactCounts.dayNeedsExact(DAY, hour(1))).isTrue();
    // nothing of the day reconciled: counters only
    assertThat(ExactCounts.dayNeedsExact(DAY, hour(0))).isFalse();
    assertThat(ExactCounts.dayNeedsExact(DAY, hour(-3))).isFalse();
    assertThat(ExactCounts.dayNeedsApprox(DAY, hour(0), Set.of())).isTrue();
    assertThat(ExactCounts.dayNeedsExact(DAY, null)).isFalse();
    assertThat(ExactCounts.dayNeedsApprox(DAY, null, Set.of())).isTrue();
  }

  @Test
  void anHourIsServedExactOnlyWhenItEndsByReconciledThroughAndIsNotReopened() {
    assertThat(ExactCounts.servedExact(hour(9), hour(10), Set.of())).isTrue();
    assertThat(ExactCounts.servedExact(hour(10), hour(10), Set.of())).isFalse();
    assertThat(ExactCounts.servedExact(hour(9), hour(10), Set.of(hour(9)))).isFalse();
    assertThat(ExactCounts.servedExact(hour(9), hour(10), Set.of(hour(8)))).isTrue();
    assertThat(ExactCounts.servedExact(hour(9), null, Set.of())).isFalse();
  }

  static ShardDay shard(Long reconciledThrough) {
    return new ShardDay(reconciledThrough, Set.of(), List.of(), List.of());
  }
}
