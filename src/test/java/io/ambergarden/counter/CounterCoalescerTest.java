package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.counter.CounterCell.Day;
import io.ambergarden.counter.CounterCell.Device;
import io.ambergarden.counter.CounterCoalescer.Update;
import io.ambergarden.event.Event;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CounterCoalescerTest {
  private static final int SHARDS = 16;
  private static final LocalDate MAR1 = LocalDate.of(2026, 3, 1);

  private static List<CounterCell> cellsOf(
      String deviceId, String isoTs, String status, Integer code) {
    return CounterCells.of(
        new Event(
            deviceId,
            Instant.parse(isoTs).toEpochMilli(),
            "",
            null,
            status,
            code,
            Map.of(),
            Map.of(),
            null),
        SHARDS);
  }

  /** n distinct device cells (each its own partition). */
  private static List<CounterCell> distinctCells(String prefix, int n) {
    List<CounterCell> cells = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      cells.add(new Device(prefix + i, "total"));
    }
    return cells;
  }

  private static List<Update> all(Map<Object, List<Update>> drained) {
    return drained.values().stream().flatMap(List::stream).toList();
  }

  @Test
  void coalescingMergesIncrementsOfTheSameCellIntoOneDelta() {
    CounterCoalescer c = new CounterCoalescer(true, 1000);
    List<CounterCell> cells = cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200);
    assertThat(cells).hasSize(4);

    assertThat(c.add(cells)).isTrue();
    assertThat(c.add(cellsOf("dev-1", "2026-03-01T09:00:00Z", "ok", 200))).isTrue();
    assertThat(c.add(cellsOf("dev-1", "2026-03-01T10:00:00Z", "ok", 200))).isTrue();

    assertThat(c.pending()).isEqualTo(4);
    assertThat(c.increments()).isEqualTo(12);
    List<Update> updates = all(c.drain());
    assertThat(updates).hasSize(4).allSatisfy(u -> assertThat(u.delta()).isEqualTo(3));
    assertThat(updates).extracting(Update::cell).containsExactlyInAnyOrderElementsOf(cells);
  }

  @Test
  void coalescingKeepsDifferentCellsApartAndCountsEachCellsOwnIncrements() {
    CounterCoalescer c = new CounterCoalescer(true, 1000);
    c.add(cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200));
    c.add(cellsOf("dev-1", "2026-03-01T08:01:00Z", "fail", 500));
    c.add(cellsOf("dev-1", "2026-03-01T08:02:00Z", null, null));

    int shard = Math.floorMod("dev-1".hashCode(), SHARDS);
    Map<CounterCell, Long> deltas = new HashMap<>();
    all(c.drain())
        .forEach(
            u -> assertThat(deltas.put(u.cell(), u.delta())).as("one update per cell").isNull());
    assertThat(deltas)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                new Day(MAR1, shard, "all", ""), 3L,
                new Day(MAR1, shard, "code", "200"), 1L,
                new Day(MAR1, shard, "code", "500"), 1L,
                new Day(MAR1, shard, "status", "ok"), 1L,
                new Day(MAR1, shard, "status", "fail"), 1L,
                new Device("dev-1", "none"), 1L,
                new Device("dev-1", "status:ok"), 1L,
                new Device("dev-1", "status:fail"), 1L));
  }

  @Test
  void withoutCoalescingEveryIncrementStaysItsOwnUpdate() {
    CounterCoalescer c = new CounterCoalescer(false, 1000);
    List<CounterCell> cells = cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200);
    c.add(cells);
    c.add(cells);
    c.add(cells);

    assertThat(c.pending()).isEqualTo(12);
    assertThat(c.increments()).isEqualTo(12);
    List<Update> updates = all(c.drain());
    assertThat(updates).hasSize(12).allSatisfy(u -> assertThat(u.delta()).isEqualTo(1));
    for (CounterCell cell : cells) {
      assertThat(updates).filteredOn(u -> u.cell().equals(cell)).hasSize(3);
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void drainGroupsEveryUpdateUnderItsPartition(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 1000);
    // two devices that salt into different shards, two days, so several day partitions and two
    // device partitions
    String a = "dev-a";
    String b = "dev-b";
    int shardA = Math.floorMod(a.hashCode(), SHARDS);
    int shardB = Math.floorMod(b.hashCode(), SHARDS);
    assertThat(shardA).as("test precondition").isNotEqualTo(shardB);
    c.add(cellsOf(a, "2026-03-01T08:00:00Z", "ok", 200));
    c.add(cellsOf(b, "2026-03-01T08:00:00Z", "ok", 200));
    c.add(cellsOf(a, "2026-03-02T08:00:00Z", "ok", 200));
    c.add(cellsOf(a, "2026-03-02T09:00:00Z", null, null));
    int pending = c.pending();
    long increments = c.increments();

    Map<Object, List<Update>> byPartition = c.drain();

    assertThat(byPartition.keySet())
        .containsExactlyInAnyOrder(
            new Day.Partition(MAR1, shardA),
            new Day.Partition(MAR1, shardB),
            new Day.Partition(MAR1.plusDays(1), shardA),
            a,
            b);
    byPartition.forEach(
        (partition, updates) ->
            assertThat(updates)
                .isNotEmpty()
                .allSatisfy(u -> assertThat(u.cell().partition()).isEqualTo(partition)));
    assertThat(all(byPartition)).hasSize(pending);
    assertThat(all(byPartition).stream().mapToLong(Update::delta).sum())
        .isEqualTo(increments)
        .isEqualTo(14);
    assertThat(byPartition.get(a).stream().mapToLong(Update::delta).sum()).isEqualTo(3);
    assertThat(byPartition.get(a)).hasSize(coalesce ? 2 : 3); // status:ok x2 + none x1
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void drainEmptiesTheCoalescerAndResetsIncrements(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 1000);
    c.add(cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200));
    assertThat(c.drain()).isNotEmpty();

    assertThat(c.pending()).isZero();
    assertThat(c.increments()).isZero();
    assertThat(c.drain()).isEmpty();

    // what comes after a drain starts from zero, not from the drained deltas
    c.add(cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200));
    assertThat(all(c.drain())).hasSize(4).allSatisfy(u -> assertThat(u.delta()).isEqualTo(1));
  }

  @Test
  void drainedMapIsNotAViewOfTheCoalescer() {
    CounterCoalescer c = new CounterCoalescer(true, 1000);
    c.add(List.of(new Device("d", "total")));
    Map<Object, List<Update>> first = c.drain();
    c.add(List.of(new Device("d", "total")));
    c.add(List.of(new Device("d", "total")));
    assertThat(first.get("d")).containsExactly(new Update(new Device("d", "total"), 1));
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void addThatWouldPassTheLimitIsRefusedAndAddsNothing(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 10);
    assertThat(c.add(distinctCells("x", 6))).isTrue();
    assertThat(c.add(distinctCells("y", 4))).as("exactly at the limit is allowed").isTrue();
    assertThat(c.pending()).isEqualTo(10);

    assertThat(c.add(distinctCells("z", 1))).isFalse();

    assertThat(c.pending()).isEqualTo(10);
    assertThat(c.increments()).isEqualTo(10);
    assertThat(all(c.drain()))
        .extracting(u -> ((Device) u.cell()).deviceId())
        .doesNotContain("z0")
        .hasSize(10);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aRefusedRequestIsRefusedWholeNotPartly(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 10);
    c.add(distinctCells("x", 8));
    // 2 of these 3 would still fit: none may be added
    assertThat(c.add(distinctCells("y", 3))).isFalse();
    assertThat(c.pending()).isEqualTo(8);
    assertThat(c.increments()).isEqualTo(8);
    assertThat(all(c.drain())).noneMatch(u -> ((Device) u.cell()).deviceId().startsWith("y"));
  }

  @Test
  void coalescingChecksTheWorstCaseSoEvenCellsThatWouldMergeAreRefusedAtTheLimit() {
    CounterCoalescer c = new CounterCoalescer(true, 6);
    List<CounterCell> cells = cellsOf("dev-1", "2026-03-01T08:00:00Z", "ok", 200);
    assertThat(c.add(cells)).isTrue();
    // would merge into the same 4 cells, but 4 + 4 > 6 is what is checked
    assertThat(c.add(cells)).isFalse();
    assertThat(c.increments()).isEqualTo(4);
    assertThat(all(c.drain())).allSatisfy(u -> assertThat(u.delta()).isEqualTo(1));
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aSingleOversizeRequestIsAcceptedIntoAnEmptyCoalescerButNothingJoinsIt(boolean coalesce) {
    // A request larger than the whole limit could never fit; refusing it while empty would refuse
    // it forever.
    CounterCoalescer c = new CounterCoalescer(coalesce, 3);
    assertThat(c.add(distinctCells("big", 7))).isTrue();
    assertThat(c.pending()).isEqualTo(7);
    assertThat(c.increments()).isEqualTo(7);

    assertThat(c.add(distinctCells("small", 1))).as("nothing joins while over the limit").isFalse();
    assertThat(c.add(distinctCells("big", 7))).as("not even a second oversize request").isFalse();
    assertThat(c.pending()).isEqualTo(7);

    assertThat(all(c.drain())).hasSize(7);
    assertThat(c.add(distinctCells("small", 1))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void anOversizeRequestIsRefusedWhenAnythingIsPending(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 3);
    assertThat(c.add(distinctCells("a", 1))).isTrue();
    assertThat(c.add(distinctCells("big", 7))).isFalse();
    assertThat(c.pending()).isEqualTo(1);
    assertThat(c.increments()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void anEmptyRequestIsAcceptedAndChangesNothing(boolean coalesce) {
    CounterCoalescer c = new CounterCoalescer(coalesce, 2);
    c.add(distinctCells("a", 2));
    assertThat(c.add(List.of())).isTrue();
    assertThat(c.pending()).isEqualTo(2);
    assertThat(c.increments()).isEqualTo(2);
  }

  /**
   * Random requests (never bigger than the limit) and drains: pending never passes the limit, a
   * request is refused only when it would pass it, and the drained deltas add up to exactly the
   * accepted increments.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void thePendingLimitHoldsAndNoIncrementIsLostOrInvented(boolean coalesce) {
    Random rnd = new Random(42);
    int max = 50;
    CounterCoalescer c = new CounterCoalescer(coalesce, max);
    Map<CounterCell, Long> accepted = new HashMap<>();
    Map<CounterCell, Long> drained = new HashMap<>();
    int refusals = 0;
    for (int step = 0; step < 5_000; step++) {
      if (rnd.nextInt(20) == 0) {
        Map<Object, List<Update>> d = c.drain();
        all(d).forEach(u -> drained.merge(u.cell(), u.delta(), Long::sum));
        assertThat(c.pending()).isZero();
        continue;
      }
      List<CounterCell> req = new ArrayList<>();
      int n = 1 + rnd.nextInt(8);
      for (int i = 0; i < n; i++) {
        req.add(new Device("d" + rnd.nextInt(30), rnd.nextBoolean() ? "total" : "status:ok"));
      }
      int before = c.pending();
      long incBefore = c.increments();
      boolean ok = c.add(req);
      assertThat(ok).isEqualTo(before == 0 || before + n <= max);
      if (ok) {
        req.forEach(cell -> accepted.merge(cell, 1L, Long::sum));
        assertThat(c.increments()).isEqualTo(incBefore + n);
      } else {
        refusals++;
        assertThat(c.pending()).isEqualTo(before);
        assertThat(c.increments()).isEqualTo(incBefore);
      }
      assertThat(c.pending()).isLessThanOrEqualTo(max);
      assertThat(c.increments()).isGreaterThanOrEqualTo(c.pending());
    }
    all(c.drain()).forEach(u -> drained.merge(u.cell(), u.delta(), Long::sum));
    assertThat(drained).isEqualTo(accepted);
    assertThat(refusals).as("the limit was actually reached").isPositive();
  }

  @Test
  void incrementsCountEveryAcceptedPlusOneAndPendingCountsUpdates() {
    CounterCoalescer merged = new CounterCoalescer(true, 100);
    CounterCoalescer separate = new CounterCoalescer(false, 100);
    for (CounterCoalescer c : List.of(merged, separate)) {
      c.add(List.of(new Device("d", "total"), new Device("d", "total"), new Device("e", "total")));
      c.add(List.of(new Device("d", "total")));
    }
    assertThat(merged.increments()).isEqualTo(4);
    assertThat(merged.pending()).isEqualTo(2);
    assertThat(separate.increments()).isEqualTo(4);
    assertThat(separate.pending()).isEqualTo(4);
    assertThat(merged.drain().get("d")).containsExactly(new Update(new Device("d", "total"), 3));
  }
}
