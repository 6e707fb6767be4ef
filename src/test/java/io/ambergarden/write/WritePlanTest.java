package io.ambergarden.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WritePlanTest {
  static final long HOUR = 3_600_000L;
  static final long T0 = 1_764_000_000_000L / HOUR * HOUR;
  static final AmberConfig.Events RULES =
      new AmberConfig.Events(
          Duration.ofDays(180),
          Duration.ofMinutes(5),
          16384,
          500,
          Set.of("fault", "error", "alarm"));
  static final TimeBuckets HOURLY = new TimeBuckets(Duration.ofHours(1));

  static Event ev(String device, long ts, String id, String type, String status, Integer code) {
    return new Event(device, ts, id, type, status, code, Map.of(), Map.of(), null);
  }

  @Test
  void detailRowsAreGroupedPerDeviceAndBucketOnly() {
    WritePlan plan =
        new WritePlan(
            List.of(
                ev("a", T0 + 1, "1", null, null, null),
                ev("b", T0 + 2, "1", null, null, null),
                ev("a", T0 + HOUR + 5, "2", null, null, null),
                ev("a", T0 + 3, "3", null, null, null)),
            HOURLY,
            RULES,
            8,
            8);
    Map<WritePlan.DetailKey, List<List<Event>>> chunks = plan.detailChunks(32);
    assertThat(chunks)
        .containsOnlyKeys(
            new WritePlan.DetailKey("a", T0),
            new WritePlan.DetailKey("b", T0),
            new WritePlan.DetailKey("a", T0 + HOUR));
    assertThat(chunks.get(new WritePlan.DetailKey("a", T0)).get(0))
        .extracting(Event::eventId)
        .containsExactly("1", "3");
  }

  @Test
  void chunksNeverExceedTheBatchSize() {
    List<Event> many =
        java.util.stream.IntStream.range(0, 70)
            .mapToObj(i -> ev("a", T0 + i, "e" + i, null, null, null))
            .toList();
    List<List<Event>> chunks =
        new WritePlan(many, HOURLY, RULES, 8, 8)
            .detailChunks(32)
            .get(new WritePlan.DetailKey("a", T0));
    assertThat(chunks).extracting(List::size).containsExactly(32, 32, 6);
  }

  @Test
  void typeRowsAreSaltedByDeviceSoOneTypeSpreadsOverPartitions() {
    List<Event> events =
        java.util.stream.IntStream.range(0, 200)
            .mapToObj(i -> ev("dev-" + i, T0 + i, "", "charger", null, null))
            .toList();
    Map<WritePlan.TypeKey, List<List<WritePlan.TypeRow>>> chunks =
        new WritePlan(events, HOURLY, RULES, 8, 8).typeChunks(32);
    assertThat(chunks.keySet())
        .extracting(WritePlan.TypeKey::salt)
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    chunks.forEach(
        (k, v) ->
            v.stream()
                .flatMap(List::stream)
                .forEach(
                    r -> {
                      assertThat(RowKeys.salt(r.event().deviceId(), 8)).isEqualTo(k.salt());
                      // a cold device's event is in its bucket's own detail partition
                      assertThat(r.detailBucket()).isEqualTo(k.bucket());
                    }));
    assertThat(
            new WritePlan(List.of(ev("x", T0, "", null, null, null)), HOURLY, RULES, 8, 8)
                .typeChunks(32))
        .isEmpty();
  }

  @Test
  void latestKeepsTheEventCassandraWouldKeep() {
    Event newer = ev("a", T0 + 10, "z", null, "new", null);
    Event older = ev("a", T0 + 5, "y", null, "old", null);
    assertThat(new WritePlan(List.of(newer, older), HOURLY, RULES, 8, 8).latest().get("a"))
        .isSameAs(newer);
    assertThat(new WritePlan(List.of(older, newer), HOURLY, RULES, 8, 8).latest().get("a"))
        .isSameAs(newer);
    Event sameTsA = ev("a", T0, "p", null, null, null);
    Event sameTsB = ev("a", T0, "q", null, null, null);
    Event expected =
        RowKeys.eventTimeWriteTimestamp(T0, "p") >= RowKeys.eventTimeWriteTimestamp(T0, "q")
            ? sameTsA
            : sameTsB;
    assertThat(new WritePlan(List.of(sameTsA, sameTsB), HOURLY, RULES, 8, 8).latest().get("a"))
        .isSameAs(expected);
    assertThat(new WritePlan(List.of(sameTsB, sameTsA), HOURLY, RULES, 8, 8).latest().get("a"))
        .isSameAs(expected);
  }

  @Test
  void abnormalRowsFollowTheConfiguredRulesOncePerDeviceHourAndCode() {
    WritePlan plan =
        new WritePlan(
            List.of(
                ev("a", T0 + 1, "1", null, null, 500),
                ev("a", T0 + 2, "2", null, null, 500),
                ev("a", T0 + 3, "3", null, null, 404),
                ev("b", T0 + 4, "4", null, "FAULT", null),
                ev("c", T0 + 5, "5", null, "normal", 200)),
            HOURLY,
            RULES,
            8,
            8);
    assertThat(plan.abnormal().keySet())
        .extracting(WritePlan.AbnormalKey::deviceId, WritePlan.AbnormalKey::code)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("a", 500),
            org.assertj.core.groups.Tuple.tuple("b", -1));
    assertThat(plan.abnormal().values()).extracting(Event::eventId).contains("2");
  }

  @Test
  void aHotDevicesPlacementNamesItsDetailPartitionsAndSpreadsItsTypeRows() {
    WritePlan.Placement salted =
        new WritePlan.Placement() {
          @Override
          public long partitionOf(Event e, long bucket) {
            return bucket + saltOf(e);
          }

          @Override
          public int saltOf(Event e) {
            return (int) (e.ts() % 4);
          }
        };
    List<Event> events =
        List.of(
            ev("hot", T0, "1", "gw", null, null),
            ev("hot", T0 + 1, "2", "gw", null, null),
            ev("hot", T0 + 2, "3", "gw", null, null),
            ev("hot", T0 + 3, "4", "gw", null, null));
    WritePlan plan = new WritePlan(events, HOURLY, RULES, 8, 8, salted);
    assertThat(plan.detailChunks(32).keySet())
        .containsExactlyInAnyOrder(
            new WritePlan.DetailKey("hot", T0),
            new WritePlan.DetailKey("hot", T0 + 1),
            new WritePlan.DetailKey("hot", T0 + 2),
            new WritePlan.DetailKey("hot", T0 + 3));
    // the bucket indexes still name the aligned bucket once
    assertThat(plan.deviceBuckets()).containsExactly(new WritePlan.BucketKey("hot", T0));
    assertThat(plan.typeBuckets()).containsExactly(new WritePlan.BucketKey("gw", T0));
    // one device, four type salt partitions instead of one
    assertThat(plan.typeChunks(32)).hasSize(4);
    // each index row names the detail partition its event went to, so a reader finds it
    assertThat(plan.typeChunks(32).values().stream().flatMap(List::stream).flatMap(List::stream))
        .allSatisfy(r -> assertThat(r.detailBucket()).isEqualTo(T0 + salted.saltOf(r.event())))
        .hasSize(4);
  }
}
