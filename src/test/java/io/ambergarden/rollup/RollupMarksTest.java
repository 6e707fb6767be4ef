package io.ambergarden.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.Event;
import io.ambergarden.rollup.RollupMarks.Mark;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RollupMarksTest {
  private static final long HOUR = 3_600_000L;
  private static final long SECOND = 1_000L;

  /** 10:00Z, the hour the events belong to. */
  private static final long H = Instant.parse("2026-03-01T10:00:00Z").toEpochMilli();

  private static final long H_END = H + HOUR;
  private static final int SHARDS = 16;

  /**
   * Grace not a multiple of the bucket, so bucketing is visible: due 11:02:05 is in bucket
   * 11:02:00.
   */
  private final RollupMarks marks =
      new RollupMarks(Duration.ofSeconds(125), Duration.ofSeconds(10), Duration.ZERO, SHARDS);

  private static Event ev(String deviceId, long ts) {
    return new Event(deviceId, ts, "");
  }

  private static int shard(String deviceId) {
    return Math.floorMod(deviceId.hashCode(), SHARDS);
  }

  private Mark single(Event e, long now) {
    Set<Mark> m = marks.of(List.of(e), now);
    assertThat(m).hasSize(1);
    return m.iterator().next();
  }

  @Test
  void onTimeEventsAreDueAtTheHourEndPlusGraceBucketed() {
    Mark m = single(ev("dev-1", H + 30 * 60 * SECOND), H + 31 * 60 * SECOND);

    assertThat(m)
        .isEqualTo(
            new Mark(
                shard("dev-1"), Instant.parse("2026-03-01T11:02:00Z").toEpochMilli(), H, "dev-1"));
  }

  @Test
  void aLateEventsMarkIsFiledLateOnlyOnceItLeavesItsHoursOnTimeBucket() {
    long grace = 125 * SECOND;
    Mark onTime = single(ev("dev-1", H + 10 * SECOND), H_END + grace);
    // late, but still in the on-time bucket (11:02:00-11:02:10): that recompute has not read yet
    Mark lateSameBucket = single(ev("dev-1", H + 10 * SECOND), H_END + grace + 1);
    Mark lateNextBucket = single(ev("dev-1", H + 10 * SECOND), H_END + grace + 5 * SECOND);

    assertThat(marks.filedLate(onTime)).isFalse();
    assertThat(lateSameBucket).isEqualTo(onTime);
    assertThat(marks.filedLate(lateSameBucket)).isFalse();
    assertThat(marks.filedLate(lateNextBucket)).isTrue();
  }

  @Test
  void anOnTimeMarkWhoseWriteWasRetriedPastItsDueBucketCountsAsFiledLate() {
    Mark onTime = single(ev("dev-1", H + 10 * SECOND), H + 20 * SECOND);
    Mark retried = marks.stampedAt(onTime, H_END + 10 * 60 * SECOND);

    assertThat(marks.filedLate(onTime)).isFalse();
    assertThat(marks.filedLate(retried)).isTrue();
  }

  @Test
  void scanningResumesAtTheBucketHoldingDoneUntilWhenTheBucketLengthChanged() {
    long aligned = H + 20 * SECOND;
    assertThat(marks.resumeFrom(aligned)).isEqualTo(aligned);
    // done_until written under a 1 s bucket: 10:00:23 resumes at 10:00:20, where marks are filed
    assertThat(marks.resumeFrom(H + 23 * SECOND)).isEqualTo(aligned);
    Mark filed = single(ev("dev-1", H - 30 * HOUR), H + 23 * SECOND); // backfill: due now
    assertThat(filed.dueBucket()).isEqualTo(marks.resumeFrom(H + 23 * SECOND));
  }

  @Test
  void theFirstAndLastMillisecondOfAnHourBelongToThatHour() {
    long now = H + 10 * SECOND;
    assertThat(single(ev("d", H), now).hour()).isEqualTo(H);
    assertThat(single(ev("d", H_END - 1), now).hour()).isEqualTo(H);
    assertThat(single(ev("d", H_END), now).hour()).isEqualTo(H_END);
    assertThat(single(ev("d", H - 1), now).hour()).isEqualTo(H - HOUR);
  }

  @Test
  void anEventWithinTheGraceAfterItsHourClosedLandsInTheSameMarkAsOnTimeEvents() {
    Mark onTime = single(ev("dev-1", H + 59 * 60 * SECOND), H + 59 * 60 * SECOND + 1);

    assertThat(single(ev("dev-1", H + 5 * 60 * SECOND), H_END)).isEqualTo(onTime);
    assertThat(single(ev("dev-1", H + 5 * 60 * SECOND), H_END + 60 * SECOND)).isEqualTo(onTime);
    assertThat(single(ev("dev-1", H + 5 * 60 * SECOND), H_END + 125 * SECOND - 1))
        .isEqualTo(onTime);
    assertThat(single(ev("dev-1", H + 5 * 60 * SECOND), H_END + 125 * SECOND))
        .as("exactly at the due time")
        .isEqualTo(onTime);
  }

  @Test
  void anEventAfterTheGraceIsDueNowBucketed() {
    long now = H_END + 125 * SECOND + 7 * SECOND + 300; // 11:02:12.300
    Mark m = single(ev("dev-1", H + 5 * 60 * SECOND), now);

    assertThat(m.hour()).isEqualTo(H);
    assertThat(m.dueBucket()).isEqualTo(Instant.parse("2026-03-01T11:02:10Z").toEpochMilli());
  }

  @Test
  void anEventForAnHourClosedLongAgoIsDueNowBucketed() {
    long now = Instant.parse("2026-03-04T17:45:33.999Z").toEpochMilli();
    Mark m = single(ev("dev-1", H + 1234), now);

    assertThat(m)
        .isEqualTo(
            new Mark(
                shard("dev-1"), Instant.parse("2026-03-04T17:45:30Z").toEpochMilli(), H, "dev-1"));
  }

  @Test
  void lateEventsOfOneDeviceHourWithinALateWindowShareOneMark() {
    RollupMarks windowed =
        new RollupMarks(
            Duration.ofSeconds(125), Duration.ofSeconds(10), Duration.ofMinutes(1), SHARDS);
    long minute = Instant.parse("2026-03-04T17:45:00Z").toEpochMilli();
    Set<Mark> seen = new HashSet<>();
    // a backlog of hour H arriving for a whole minute, one event per second
    for (long at = minute + 1; at < minute + 60 * SECOND; at += SECOND) {
      seen.addAll(windowed.of(List.of(ev("dev-1", H + at % HOUR)), at));
    }
    assertThat(seen).containsExactly(new Mark(shard("dev-1"), minute + 60 * SECOND, H, "dev-1"));
    // without the window: one mark per 10 s bucket
    Set<Mark> unwindowed = new HashSet<>();
    for (long at = minute + 1; at < minute + 60 * SECOND; at += SECOND) {
      unwindowed.addAll(marks.of(List.of(ev("dev-1", H + at % HOUR)), at));
    }
    assertThat(unwindowed).hasSize(6);
    // on the window's edge the mark is due at once; on-time events ignore the window
    assertThat(windowed.of(List.of(ev("dev-1", H)), minute))
        .containsExactly(new Mark(shard("dev-1"), minute, H, "dev-1"));
    Mark onTime = single(ev("dev-1", H + 30 * 60 * SECOND), H + 31 * 60 * SECOND);
    assertThat(windowed.of(List.of(ev("dev-1", H + 30 * 60 * SECOND)), H + 31 * 60 * SECOND))
        .containsExactly(onTime);
  }

  @Test
  void aLateEventJustAfterTheGraceIsDueNoLaterThanTheLateWindowAndNoEarlierThanNow() {
    RollupMarks windowed =
        new RollupMarks(
            Duration.ofSeconds(125), Duration.ofSeconds(10), Duration.ofMinutes(1), SHARDS);
    long now = H_END + 125 * SECOND + 1; // 11:02:05.001, the grace just passed
    Mark m = windowed.of(List.of(ev("dev-1", H + 5)), now).iterator().next();
    assertThat(m.dueBucket()).isEqualTo(Instant.parse("2026-03-01T11:03:00Z").toEpochMilli());
  }

  @Test
  void aFutureEventIsDueAfterItsOwnHourPlusGrace() {
    long now = H + 10 * SECOND;
    Mark m = single(ev("dev-1", H + 2 * HOUR + 1), now);
    assertThat(m.hour()).isEqualTo(H + 2 * HOUR);
    assertThat(m.dueBucket()).isEqualTo(H + 3 * HOUR + 120 * SECOND);
  }

  @Test
  void marksAreDistinctPerDeviceAndHour() {
    long now = H + 40 * 60 * SECOND;
    Set<Mark> m =
        marks.of(
            List.of(
                ev("a", H + 1),
                ev("a", H + 2),
                ev("a", H + 30 * 60 * SECOND), // one (a, H)
                ev("a", H - HOUR + 5), // (a, H-1h), late: due now
                ev("b", H + 1),
                ev("b", H + 3), // one (b, H)
                ev("c", H - 3 * HOUR),
                ev("c", H - 3 * HOUR + 999)),
            now); // one (c, H-3h)

    assertThat(m)
        .containsExactlyInAnyOrder(
            new Mark(shard("a"), H_END + 120 * SECOND, H, "a"),
            new Mark(shard("a"), marks.bucketOf(now), H - HOUR, "a"),
            new Mark(shard("b"), H_END + 120 * SECOND, H, "b"),
            new Mark(shard("c"), marks.bucketOf(now), H - 3 * HOUR, "c"));
  }

  @Test
  void noEventsNoMarks() {
    assertThat(marks.of(List.of(), H)).isEmpty();
  }

  @Test
  void theShardIsTheDevicesSalt() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 300; i++) {
      String dev = "device-" + i;
      assertThat(marks.shardOf(dev)).isEqualTo(shard(dev)).isBetween(0, SHARDS - 1);
      assertThat(single(ev(dev, H), H).shard()).isEqualTo(shard(dev));
      seen.add(marks.shardOf(dev));
    }
    assertThat(seen).hasSize(SHARDS);
  }

  @Test
  void bucketsAreAlignedStartsAndFloorBeforeTheEpoch() {
    assertThat(marks.bucketMillis()).isEqualTo(10_000L);
    assertThat(marks.bucketOf(H + 9_999)).isEqualTo(H);
    assertThat(marks.bucketOf(H + 10_000)).isEqualTo(H + 10_000);
    assertThat(marks.bucketOf(-1)).isEqualTo(-10_000);
  }

  @Test
  void aBucketIsProcessableOnlyOnceItEndedAtLeastTheSafetyAgo() {
    long b = H + 10_000;
    Duration safety = Duration.ofSeconds(20);
    assertThat(marks.processable(b, b + 10_000 + 20_000, safety)).isTrue();
    assertThat(marks.processable(b, b + 10_000 + 20_000 - 1, safety)).isFalse();
    assertThat(marks.processable(b, b + 10_000 + 20_000 + 5 * HOUR, safety)).isTrue();
    assertThat(marks.processable(b, b + 9_999, Duration.ZERO)).isFalse();
    assertThat(marks.processable(b, b + 10_000, Duration.ZERO)).isTrue();
  }

  @Test
  void aDueWindowHoldsTheConsecutiveProcessableBucketsUpToItsSize() {
    long b = H + 10_000;
    Duration safety = Duration.ofSeconds(20);
    // buckets b, b+10s, b+20s have ended 20 s before now; b+30s has not
    long now = b + 30_000 + 20_000 + 5_000;
    assertThat(marks.dueWindow(b, now, safety, 32)).containsExactly(b, b + 10_000, b + 20_000);
    assertThat(marks.dueWindow(b, now, safety, 2)).containsExactly(b, b + 10_000);
    assertThat(marks.dueWindow(b, b + 10_000 + 20_000 - 1, safety, 32)).isEmpty();
    assertThat(marks.dueWindow(b, now, safety, 0)).isEmpty();
  }

  /**
   * For any now: the bucket a mark written at {@code now} goes to is not processable at now, nor at
   * now + d for a write delay d up to the safety, and it does become processable once it ended plus
   * the safety.
   */
  @Test
  void aBucketThatCanStillReceiveAMarkIsNeverProcessable() {
    Random rnd = new Random(7);
    for (int round = 0; round < 2_000; round++) {
      Duration grace = Duration.ofMillis(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(24 * HOUR + 1));
      Duration bucket = Duration.ofMillis(SECOND + rnd.nextLong(HOUR));
      Duration safety = Duration.ofMillis(rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(HOUR + 1));
      Duration late = Duration.ofMillis(rnd.nextBoolean() ? 0 : rnd.nextLong(HOUR + 1));
      RollupMarks rm = new RollupMarks(grace, bucket, late, SHARDS);
      long now = H + rnd.nextLong(30L * 24 * HOUR) - 15L * 24 * HOUR;
      List<Event> events = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        // mostly recent and late events, some far in the past, a few in the future, some right at
        // hour edges
        long ts =
            switch (rnd.nextInt(4)) {
              case 0 -> now - rnd.nextLong(3 * HOUR);
              case 1 -> now - rnd.nextLong(7L * 24 * HOUR);
              case 2 -> now + rnd.nextLong(HOUR);
              default -> Math.floorDiv(now, HOUR) * HOUR - (rnd.nextBoolean() ? 0 : 1);
            };
        events.add(ev("dev-" + rnd.nextInt(5), ts));
      }
      for (Mark m : rm.of(events, now)) {
        long d = rnd.nextLong(safety.toMillis() + 1);
        assertThat(m.dueBucket()).isEqualTo(rm.bucketOf(m.dueBucket()));
        assertThat(m.dueBucket()).isGreaterThanOrEqualTo(rm.bucketOf(now));
        if (m.hour() + HOUR + grace.toMillis() < now) {
          assertThat(m.dueBucket()).as("late, %s", m).isLessThanOrEqualTo(now + late.toMillis());
        }
        assertThat(rm.processable(m.dueBucket(), now, safety)).as("at now, %s", m).isFalse();
        assertThat(rm.processable(m.dueBucket(), now + safety.toMillis(), safety))
            .as("at now + safety")
            .isFalse();
        assertThat(rm.processable(m.dueBucket(), now + d, safety)).as("at now + %d", d).isFalse();
        long end = m.dueBucket() + bucket.toMillis() + safety.toMillis();
        assertThat(rm.processable(m.dueBucket(), end, safety)).isTrue();
        // and never before the hour closed plus grace
        assertThat(end).isGreaterThan(m.hour() + HOUR + grace.toMillis());
      }
    }
  }

  /**
   * A processor that advances done_until the way RollupVerticle does, and a writer whose marks land
   * up to the safety after they were computed: no mark ever lands in a bucket that was already
   * processed.
   */
  @Test
  void noMarkLandsInABucketThatWasAlreadyProcessed() {
    Duration safety = Duration.ofSeconds(20);
    long delay = safety.toMillis();
    long start = H + 17 * 60 * SECOND + 3;
    long doneUntil =
        marks.bucketOf(start) - marks.bucketMillis(); // as RollupVerticle initialises it
    Random rnd = new Random(11);
    List<long[]> inFlight = new ArrayList<>(); // {landsAt, dueBucket}
    int landed = 0;
    int processed = 0;
    for (long t = start; t < start + 3 * HOUR; t += 1 + rnd.nextInt(3_000)) {
      // marks whose write was issued earlier land now
      for (var it = inFlight.iterator(); it.hasNext(); ) {
        long[] w = it.next();
        if (w[0] <= t) {
          assertThat(w[1])
              .as("mark landing at %d in bucket %d, done until %d", t, w[1], doneUntil)
              .isGreaterThanOrEqualTo(doneUntil);
          landed++;
          it.remove();
        }
      }
      // the processor: each processable bucket in turn
      while (marks.processable(doneUntil, t, safety)) {
        doneUntil += marks.bucketMillis();
        processed++;
      }
      // a writer computes marks now; the write takes up to the safety
      long ts = rnd.nextBoolean() ? t - rnd.nextLong(2 * HOUR) : t;
      for (Mark m : marks.of(List.of(ev("d" + rnd.nextInt(3), ts)), t)) {
        inFlight.add(new long[] {t + rnd.nextLong(delay + 1), m.dueBucket()});
      }
    }
    assertThat(landed).isGreaterThan(1000);
    assertThat(processed).isGreaterThan(1000);
  }

  /**
   * The writer retries a mark write for as long as it likes (attempts of at most the request
   * timeout, backoff, a queue before each attempt), filing it under the time of each attempt: the
   * attempt that lands never lands in a bucket the processor already read. Filed under the time it
   * was computed instead, as before, the same writes do land in read buckets.
   */
  @Test
  void aMarkRetriedPastTheSafetyIsFiledUnderItsLastAttemptAndNeverLandsInAReadBucket() {
    Duration safety = Duration.ofSeconds(20);
    long requestTimeout = Duration.ofSeconds(5).toMillis();
    Random rnd = new Random(42);
    long start = H_END + 10 * HOUR;
    long doneUntil = marks.bucketOf(start) - marks.bucketMillis();
    // {landsAt, stamped bucket, bucket computed before the first attempt}
    List<long[]> inFlight = new ArrayList<>();
    int landed = 0;
    int lateWithoutStamping = 0;
    for (long t = start; t < start + 3 * HOUR; t += 1 + rnd.nextInt(3_000)) {
      for (var it = inFlight.iterator(); it.hasNext(); ) {
        long[] w = it.next();
        if (w[0] <= t) {
          assertThat(w[1])
              .as("stamped mark landing at %d in bucket %d, done until %d", t, w[1], doneUntil)
              .isGreaterThanOrEqualTo(doneUntil);
          lateWithoutStamping += w[2] < doneUntil ? 1 : 0;
          landed++;
          it.remove();
        }
      }
      while (marks.processable(doneUntil, t, safety)) {
        doneUntil += marks.bucketMillis();
      }
      long ts = rnd.nextBoolean() ? t - rnd.nextLong(2 * HOUR) : t;
      for (Mark m : marks.of(List.of(ev("d" + rnd.nextInt(3), ts)), t)) {
        // failed attempts (each up to the request timeout, then a backoff), then one that lands
        long attemptAt = t + rnd.nextLong(2_000); // waited in the limiter's queue
        for (int failed = rnd.nextInt(4); failed > 0; failed--) {
          attemptAt += rnd.nextLong(requestTimeout + 1) + rnd.nextLong(30_000);
        }
        long landsAt = attemptAt + rnd.nextLong(requestTimeout + 1);
        Mark sent = marks.stampedAt(m, attemptAt);
        assertThat(sent.hour()).isEqualTo(m.hour());
        assertThat(sent.dueBucket()).isGreaterThanOrEqualTo(m.dueBucket());
        inFlight.add(new long[] {landsAt, sent.dueBucket(), m.dueBucket()});
      }
    }
    assertThat(landed).isGreaterThan(1000);
    assertThat(lateWithoutStamping)
        .as("writes that would have landed in a read bucket without stamping")
        .isGreaterThan(100);
  }

  @Test
  void stampingLeavesAMarkDueInTheFutureAlone() {
    Mark onTime = single(ev("dev-1", H + 30 * 60 * SECOND), H + 31 * 60 * SECOND);
    assertThat(marks.stampedAt(onTime, H + 40 * 60 * SECOND)).isEqualTo(onTime);
    Mark moved = marks.stampedAt(onTime, H_END + 10 * 60 * SECOND);
    assertThat(moved.dueBucket()).isEqualTo(marks.bucketOf(H_END + 10 * 60 * SECOND));
    assertThat(moved.hour()).isEqualTo(onTime.hour());
    assertThat(moved.shard()).isEqualTo(onTime.shard());
  }
}
