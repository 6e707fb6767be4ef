package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.counter.CounterCell.Day;
import io.ambergarden.counter.CounterCell.Device;
import io.ambergarden.event.Event;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class CounterCellsTest {
  private static final int SHARDS = 16;

  static Event event(String deviceId, String isoTs, String status, Integer code) {
    return new Event(
        deviceId,
        Instant.parse(isoTs).toEpochMilli(),
        "e-1",
        null,
        status,
        code,
        Map.of("temp", 1.0),
        Map.of(),
        null);
  }

  /** The shard, computed here independently of RowKeys so a change of the salting is noticed. */
  static int expectedShard(String deviceId, int shards) {
    return Math.floorMod(deviceId.hashCode(), shards);
  }

  @Test
  void eventWithCodeAndStatusGivesAllCodeStatusDayCellsAndOneDeviceCell() {
    Event e = event("M-10086", "2026-03-01T12:34:56.789Z", "degraded", 503);
    int shard = expectedShard("M-10086", SHARDS);
    LocalDate day = LocalDate.of(2026, 3, 1);

    assertThat(CounterCells.of(e, SHARDS))
        .containsExactly(
            new Day(day, shard, "all", ""),
            new Day(day, shard, "code", "503"),
            new Day(day, shard, "status", "degraded"),
            new Device("M-10086", "status:degraded"));
  }

  @Test
  void aDeviceTypeGivesItsTypeCellInTheSameDayPartition() {
    Event e =
        new Event(
            "M-7",
            Instant.parse("2026-03-01T12:00:00Z").toEpochMilli(),
            "e-1",
            "charger",
            "ok",
            null,
            Map.of(),
            Map.of(),
            null);
    int shard = expectedShard("M-7", SHARDS);
    LocalDate day = LocalDate.of(2026, 3, 1);

    assertThat(CounterCells.of(e, SHARDS))
        .containsExactly(
            new Day(day, shard, "all", ""),
            new Day(day, shard, "status", "ok"),
            new Day(day, shard, "type", "charger"),
            new Device("M-7", "status:ok"));
  }

  @Test
  void absentCodeAndStatusProduceNoCodeOrStatusCells() {
    Event e = event("dev-1", "2026-03-01T00:00:00Z", null, null);
    int shard = expectedShard("dev-1", SHARDS);

    assertThat(CounterCells.of(e, SHARDS))
        .containsExactly(
            new Day(LocalDate.of(2026, 3, 1), shard, "all", ""), new Device("dev-1", "none"));
  }

  @Test
  void onlyCodeGivesACodeCellButNoStatusCells() {
    List<CounterCell> cells =
        CounterCells.of(event("dev-1", "2026-03-01T00:00:00Z", null, 0), SHARDS);

    assertThat(cells)
        .hasSize(3)
        .contains(new Day(LocalDate.of(2026, 3, 1), expectedShard("dev-1", SHARDS), "code", "0"));
    assertThat(cells).noneMatch(c -> c instanceof Day d && d.dimension().equals("status"));
    assertThat(cells).noneMatch(c -> c instanceof Device d && d.name().startsWith("status:"));
  }

  @Test
  void onlyStatusGivesStatusCellsButNoCodeCell() {
    List<CounterCell> cells =
        CounterCells.of(event("dev-1", "2026-03-01T00:00:00Z", "ok", null), SHARDS);

    assertThat(cells)
        .hasSize(3)
        .contains(
            new Day(LocalDate.of(2026, 3, 1), expectedShard("dev-1", SHARDS), "status", "ok"),
            new Device("dev-1", "status:ok"));
    assertThat(cells).noneMatch(c -> c instanceof Day d && d.dimension().equals("code"));
  }

  @Test
  void negativeCodeIsItsDecimalText() {
    assertThat(CounterCells.of(event("d", "2026-03-01T00:00:00Z", null, -42), SHARDS))
        .contains(new Day(LocalDate.of(2026, 3, 1), expectedShard("d", SHARDS), "code", "-42"));
  }

  @Test
  void dayIsTheUtcDayOfTheEventTimeWithTheBoundaryAtUtcMidnight() {
    assertThat(dayOf("2026-03-01T23:59:59.999Z")).isEqualTo(LocalDate.of(2026, 3, 1));
    assertThat(dayOf("2026-03-02T00:00:00Z")).isEqualTo(LocalDate.of(2026, 3, 2));
    assertThat(dayOf("2024-02-29T23:59:59.999Z")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(dayOf("2024-03-01T00:00:00.000Z")).isEqualTo(LocalDate.of(2024, 3, 1));
    // before the epoch: floor, not truncation towards zero
    assertThat(TimeBuckets.utcDay(-1L)).isEqualTo(LocalDate.of(1969, 12, 31));
    assertThat(TimeBuckets.utcDay(0L)).isEqualTo(LocalDate.of(1970, 1, 1));
  }

  @Test
  void dayDoesNotDependOnTheJvmDefaultTimeZone() {
    TimeZone saved = TimeZone.getDefault();
    try {
      // UTC+14 and UTC-12: in either zone these instants fall on another local day than in UTC
      TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
      assertThat(dayOf("2026-03-01T20:00:00Z")).isEqualTo(LocalDate.of(2026, 3, 1));
      TimeZone.setDefault(TimeZone.getTimeZone("Etc/GMT+12"));
      assertThat(dayOf("2026-03-01T04:00:00Z")).isEqualTo(LocalDate.of(2026, 3, 1));
    } finally {
      TimeZone.setDefault(saved);
    }
  }

  @Test
  void dayIsTheEventTimeNotTheWallClock() {
    Event old = event("dev-1", "2020-01-15T10:00:00Z", "ok", 1);
    assertThat(CounterCells.of(old, SHARDS))
        .filteredOn(c -> c instanceof Day)
        .allSatisfy(c -> assertThat(((Day) c).day()).isEqualTo(LocalDate.of(2020, 1, 15)));
  }

  @Test
  void everyDayCellOfAnEventIsInTheDevicesShardAndOnePartition() {
    Set<Integer> shardsSeen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      String dev = "device-" + i;
      List<CounterCell> cells =
          CounterCells.of(event(dev, "2026-03-01T08:00:00Z", "ok", 200), SHARDS);
      List<Day> days = cells.stream().filter(Day.class::isInstance).map(Day.class::cast).toList();
      assertThat(days).hasSize(3);
      assertThat(days)
          .allSatisfy(
              d -> assertThat(d.shard()).isEqualTo(expectedShard(dev, SHARDS)).isBetween(0, 15));
      assertThat(days.stream().map(CounterCell::partition).distinct())
          .containsExactly(new Day.Partition(LocalDate.of(2026, 3, 1), expectedShard(dev, SHARDS)));
      assertThat(
              cells.stream()
                  .filter(Device.class::isInstance)
                  .map(CounterCell::partition)
                  .distinct())
          .containsExactly(dev);
      shardsSeen.add(days.get(0).shard());
    }
    // the devices really spread over the shards
    assertThat(shardsSeen).hasSize(SHARDS);
  }

  @Test
  void oneShardPutsEveryDeviceInShardZero() {
    for (String dev : List.of("a", "b", "M-10086", "zzz")) {
      assertThat(CounterCells.of(event(dev, "2026-03-01T08:00:00Z", null, null), 1))
          .filteredOn(Day.class::isInstance)
          .allSatisfy(c -> assertThat(((Day) c).shard()).isZero());
    }
  }

  @Test
  void theSameEventAlwaysGivesEqualCellsAndSameDayEventsOfADeviceShareCells() {
    Event e = event("dev-7", "2026-03-01T08:00:00Z", "ok", 200);
    assertThat(CounterCells.of(e, SHARDS)).isEqualTo(CounterCells.of(e, SHARDS));

    Event laterSameDay = event("dev-7", "2026-03-01T23:00:00Z", "ok", 200);
    assertThat(CounterCells.of(laterSameDay, SHARDS)).isEqualTo(CounterCells.of(e, SHARDS));

    Event nextDay = event("dev-7", "2026-03-02T00:00:00Z", "ok", 200);
    assertThat(CounterCells.of(nextDay, SHARDS))
        .filteredOn(Day.class::isInstance)
        .doesNotContainAnyElementsOf(CounterCells.of(e, SHARDS));
    // device counters are not per day
    assertThat(CounterCells.of(nextDay, SHARDS))
        .filteredOn(Device.class::isInstance)
        .containsExactlyElementsOf(
            CounterCells.of(e, SHARDS).stream().filter(Device.class::isInstance).toList());
  }

  @Test
  void partitionOfADayCellIgnoresDimensionAndValue() {
    LocalDate day = LocalDate.of(2026, 3, 1);
    assertThat(new Day(day, 3, "all", "").partition())
        .isEqualTo(new Day(day, 3, "status", "ok").partition())
        .isEqualTo(new Day.Partition(day, 3));
    assertThat(new Day(day, 3, "all", "").partition())
        .isNotEqualTo(new Day(day, 4, "all", "").partition());
    assertThat(new Day(day, 3, "all", "").partition())
        .isNotEqualTo(new Day(day.plusDays(1), 3, "all", "").partition());
    assertThat(new Device("d1", "none").partition())
        .isEqualTo(new Device("d1", "status:ok").partition())
        .isEqualTo("d1");
  }

  private static LocalDate dayOf(String iso) {
    Day all = (Day) CounterCells.of(event("dev", iso, null, null), SHARDS).get(0);
    assertThat(TimeBuckets.utcDay(Instant.parse(iso).toEpochMilli())).isEqualTo(all.day());
    return all.day();
  }
}
