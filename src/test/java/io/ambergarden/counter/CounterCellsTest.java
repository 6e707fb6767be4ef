package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.bus.CountFacts;
import io.ambergarden.counter.CounterCell.DeviceHour;
import io.ambergarden.counter.CounterCell.StatusHour;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CounterCellsTest {
  private static final int SHARDS = 16;
  private static final long HOUR = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();
  private static final LocalDate DAY = LocalDate.of(2026, 3, 1);

  /** The shard, computed here independently of RowKeys so a change of the salting is noticed. */
  static int expectedShard(String deviceId, int shards) {
    return Math.floorMod(deviceId.hashCode(), shards);
  }

  static CountFacts.Fact fact(String device, String type, String status, Integer code, int n) {
    return new CountFacts.Fact(device, HOUR, type, status, code, n);
  }

  @Test
  void aFactWithEveryFieldGivesEveryDimensionOfItsHourAndOneDeviceCell() {
    int shard = expectedShard("M-10086", SHARDS);
    assertThat(CounterCells.of(fact("M-10086", "charger", "degraded", 503, 3), SHARDS))
        .containsExactly(
            new StatusHour(DAY, shard, HOUR, "all", ""),
            new StatusHour(DAY, shard, HOUR, "code", "503"),
            new StatusHour(DAY, shard, HOUR, "status", "degraded"),
            new StatusHour(DAY, shard, HOUR, "type", "charger"),
            new DeviceHour(DAY, shard, "M-10086", HOUR, "status:degraded"));
  }

  @Test
  void absentFieldsGiveNoCellsOfTheirDimensionAndTheNoStatusDeviceCell() {
    int shard = expectedShard("dev-1", SHARDS);
    assertThat(CounterCells.of(fact("dev-1", null, null, null, 1), SHARDS))
        .containsExactly(
            new StatusHour(DAY, shard, HOUR, "all", ""),
            new DeviceHour(DAY, shard, "dev-1", HOUR, "none"));
  }

  @Test
  void aNegativeCodeIsItsDecimalText() {
    assertThat(CounterCells.of(fact("d", null, null, -42, 1), SHARDS))
        .contains(new StatusHour(DAY, expectedShard("d", SHARDS), HOUR, "code", "-42"));
  }

  @Test
  void theDayIsTheUtcDayOfTheHour() {
    long lastHour = Instant.parse("2026-03-01T23:00:00Z").toEpochMilli();
    CountFacts.Fact f = new CountFacts.Fact("d", lastHour, null, "ok", null, 1);
    assertThat(CounterCells.of(f, SHARDS))
        .allSatisfy(c -> assertThat(((CounterCell.Partition) c.partition()).day()).isEqualTo(DAY));
  }

  @Test
  void everyCellOfADeviceIsInItsShardAndEveryShardIsUsed() {
    Set<Integer> shardsSeen = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      String dev = "dev-" + i;
      List<CounterCell> cells = CounterCells.of(fact(dev, "t", "ok", 200, 1), SHARDS);
      assertThat(cells)
          .allSatisfy(
              c ->
                  assertThat(((CounterCell.Partition) c.partition()).shard())
                      .isEqualTo(expectedShard(dev, SHARDS)));
      shardsSeen.add(expectedShard(dev, SHARDS));
    }
    assertThat(shardsSeen).hasSize(SHARDS);
  }

  @Test
  void statusAndDeviceCellsOfOneShardDayAreInTwoPartitions() {
    List<Object> partitions =
        CounterCells.of(fact("M-1", "t", "ok", 200, 1), SHARDS).stream()
            .map(CounterCell::partition)
            .distinct()
            .toList();
    assertThat(partitions).hasSize(2);
  }

  @Test
  void theCoalescerAddsEachFactsEventsToEveryCellItMakes() {
    CounterCoalescer c = new CounterCoalescer(SHARDS);
    c.add(
        List.of(
            fact("M-1", null, "ok", 200, 3),
            fact("M-1", null, "ok", 500, 2),
            fact("M-2", null, null, null, 4)));
    Map<CounterCell, Long> deltas = new java.util.HashMap<>();
    c.updates().forEach(u -> deltas.put(u.cell(), u.delta()));
    int s1 = expectedShard("M-1", SHARDS);
    int s2 = expectedShard("M-2", SHARDS);
    assertThat(deltas)
        .containsEntry(new DeviceHour(DAY, s1, "M-1", HOUR, "status:ok"), 5L)
        .containsEntry(new StatusHour(DAY, s1, HOUR, "code", "200"), 3L)
        .containsEntry(new StatusHour(DAY, s1, HOUR, "code", "500"), 2L)
        .containsEntry(new DeviceHour(DAY, s2, "M-2", HOUR, "none"), 4L);
    long all =
        deltas.entrySet().stream()
            .filter(e -> e.getKey() instanceof StatusHour s && s.dimension().equals("all"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    assertThat(all).isEqualTo(9);
    assertThat(c.pending()).isEqualTo(deltas.size());
  }
}
