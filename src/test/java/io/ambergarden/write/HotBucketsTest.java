package io.ambergarden.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.DetailSlices.Slice;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HotBucketsTest {
  static final long HOUR = 3_600_000L;
  static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00Z, an hour start
  static final int TARGET = 50_000;

  /**
   * What one writer does: batches placed, then the split it proposes is created before the next.
   */
  static final class Writer {
    final HotBuckets hot = new HotBuckets(HOUR, TARGET, 64, 1000);
    final Map<Long, Long> rowsPerPartition = new HashMap<>();
    final List<Long> placed = new ArrayList<>();
    int splits;

    void write(List<Event> batch) {
      Map<HotBuckets.Key, HotBuckets.State> touched = new HashMap<>();
      for (Event e : batch) {
        long bucket = Math.floorDiv(e.ts(), HOUR) * HOUR;
        HotBuckets.Key k = new HotBuckets.Key(e.deviceId(), bucket);
        HotBuckets.State s =
            touched.computeIfAbsent(
                k,
                key -> {
                  HotBuckets.State known = hot.get(key);
                  if (known != null) {
                    return known;
                  }
                  Slice initial = hot.initialSlice(key);
                  HotBuckets.State fresh =
                      new HotBuckets.State(bucket, initial == null ? List.of() : List.of(initial));
                  hot.put(key, fresh);
                  return fresh;
                });
        long partition = hot.place(s, e);
        rowsPerPartition.merge(partition, 1L, Long::sum);
        placed.add(partition);
      }
      touched
          .values()
          .forEach(
              s -> {
                Slice split = hot.splitFor(s);
                if (split != null) {
                  s.addSlice(split);
                  splits++;
                }
              });
    }
  }

  static List<Event> steady(String device, long from, int perSecond, int seconds) {
    List<Event> out = new ArrayList<>();
    long step = 1000L / perSecond;
    for (int i = 0; i < perSecond * seconds; i++) {
      out.add(new Event(device, from + i * step, "e" + i));
    }
    return out;
  }

  static void writeInBatches(Writer w, List<Event> events, int batch) {
    for (int i = 0; i < events.size(); i += batch) {
      w.write(events.subList(i, Math.min(events.size(), i + batch)));
    }
  }

  @Test
  void aDeviceAtOneHundredEventsPerSecondNeverFillsAPartitionPastTheTarget() {
    Writer w = new Writer();
    // two hours at 100 events/s: 720,000 events, 360,000 per hour bucket
    writeInBatches(w, steady("hot-1", T0, 100, 7200), 500);

    assertThat(w.rowsPerPartition.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(720_000);
    assertThat(w.rowsPerPartition.values())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(TARGET));
    // the first hour had to split on the way; the second started salted
    assertThat(w.splits).isGreaterThanOrEqualTo(1);
    HotBuckets.State second = w.hot.get(new HotBuckets.Key("hot-1", T0 + HOUR));
    assertThat(second.slices().get(0).start()).isEqualTo(T0 + HOUR);
    assertThat(second.slices().get(0).salts()).isGreaterThan(1);
  }

  @Test
  void everyEventStaysWhereTheFinalSlicesPutIt() {
    Writer w = new Writer();
    List<Event> events = steady("hot-2", T0, 100, 3600);
    writeInBatches(w, events, 300);
    List<Slice> slices = w.hot.get(new HotBuckets.Key("hot-2", T0)).slices();
    // a redelivery placed with the slices as they ended up lands on the same row
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      long again = DetailSlices.partitionOf(T0, slices, e.ts(), e.eventId());
      if (again != w.placed.get(i)) {
        assertThat(again).as("partition of %s", e).isEqualTo(w.placed.get(i));
      }
    }
  }

  @Test
  void aColdDeviceKeepsOnePartitionPerBucket() {
    Writer w = new Writer();
    writeInBatches(w, steady("cold-1", T0, 1, 7200), 50);
    assertThat(w.splits).isZero();
    assertThat(w.rowsPerPartition).containsOnlyKeys(T0, T0 + HOUR);
    assertThat(w.hot.initialSlice(new HotBuckets.Key("cold-1", T0 + 2 * HOUR))).isNull();
  }

  @Test
  void aSplitStartsOnTheSecondAfterTheNewestEventAndLeavesEarlierRowsAlone() {
    HotBuckets hot = new HotBuckets(HOUR, 1000, 64, 10);
    HotBuckets.State s = new HotBuckets.State(T0, List.of());
    List<Event> burst = steady("d", T0 + 90_000, 100, 5); // 500 rows, 00:01:30.000 to :34.990
    burst.forEach(e -> hot.place(s, e));
    Slice split = hot.splitFor(s);
    assertThat(split).isNotNull();
    assertThat(split.start()).isEqualTo(T0 + 95_000);
    assertThat(split.salts()).isBetween(2, 64);
    s.splitPending = true;
    assertThat(hot.splitFor(s)).as("one split at a time").isNull();
  }

  @Test
  void aBurstJustBeforeTheHourDoesNotSaltTheNextHour() {
    Writer w = new Writer();
    // a backlog sent after a reconnect: 3,000 events in the last 3 s of the hour
    writeInBatches(w, steady("burst-1", T0 + HOUR - 3_000, 1000, 3), 500);
    // at that rate the hour would hold 3.6 million rows; over a sixth of an hour, 18,000
    assertThat(w.hot.initialSlice(new HotBuckets.Key("burst-1", T0 + HOUR))).isNull();
  }

  @Test
  void aSplitAfterABurstSaltsByTheRowsNotByTheBurstsRate() {
    HotBuckets hot = new HotBuckets(HOUR, 1000, 64, 10);
    HotBuckets.State s = new HotBuckets.State(T0, List.of());
    steady("d", T0 + 90_000, 100, 5).forEach(e -> hot.place(s, e));
    // 500 rows over 5 s would be 350,000 for the rest of the hour (64 salts); over 10 minutes,
    // about 2,900: 8 salts of 500
    assertThat(hot.splitFor(s).salts()).isEqualTo(8);
  }

  @Test
  void aDeviceThatStaysHotAfterABurstIsSplitAgainAndNeverPassesTheTarget() {
    Writer w = new Writer();
    List<Event> events = new ArrayList<>(steady("hot-3", T0, 3000, 10));
    List<Event> after = steady("hot-3", T0 + 10_000, 100, 3590);
    for (int i = 0; i < after.size(); i++) {
      Event e = after.get(i);
      events.add(new Event(e.deviceId(), e.ts(), "s" + i));
    }
    writeInBatches(w, events, 500);

    assertThat(w.rowsPerPartition.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(events.size());
    assertThat(w.rowsPerPartition.values())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(TARGET));
    assertThat(w.splits).isGreaterThanOrEqualTo(2);
  }

  @Test
  void noSplitIsProposedPastTheEndOfTheBucket() {
    HotBuckets hot = new HotBuckets(HOUR, 1000, 64, 10);
    HotBuckets.State s = new HotBuckets.State(T0, List.of());
    steady("d", T0 + HOUR - 10_000, 100, 10).forEach(e -> hot.place(s, e));
    assertThat(hot.splitFor(s)).isNull();
  }

  @Test
  void saltsArePowersOfTwoUpToTheCap() {
    HotBuckets hot = new HotBuckets(HOUR, 1000, 64, 10);
    assertThat(hot.saltsFor(100)).isEqualTo(1);
    assertThat(hot.saltsFor(501)).isEqualTo(2);
    assertThat(hot.saltsFor(3000)).isEqualTo(8);
    assertThat(hot.saltsFor(1e9)).isEqualTo(64);
  }

  @Test
  void theMemoryIsBounded() {
    HotBuckets hot = new HotBuckets(HOUR, 1000, 64, 3);
    for (int i = 0; i < 10; i++) {
      hot.put(new HotBuckets.Key("d" + i, T0), new HotBuckets.State(T0, List.of()));
    }
    assertThat(hot.get(new HotBuckets.Key("d0", T0))).isNull();
    assertThat(hot.get(new HotBuckets.Key("d9", T0))).isNotNull();
  }
}
