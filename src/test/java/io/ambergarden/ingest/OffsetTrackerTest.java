package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {

  @Test
  void theCommitNeverPassesAnUnfinishedRecord() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    OffsetTracker.Entry a = t.begin("p0", 10);
    OffsetTracker.Entry b = t.begin("p0", 11);
    OffsetTracker.Entry c = t.begin("p0", 12);
    c.finish();
    b.finish();
    assertThat(t.toCommit()).isEmpty();
    a.finish();
    assertThat(t.toCommit()).isEqualTo(Map.of("p0", 13L));
    assertThat(t.inFlight()).isZero();
  }

  @Test
  void aCommittedOffsetIsNotOfferedAgain() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0", "p1"));
    t.begin("p0", 0).finish();
    t.begin("p1", 5);
    Map<String, Long> first = t.toCommit();
    assertThat(first).isEqualTo(Map.of("p0", 1L));
    t.committed(first);
    assertThat(t.toCommit()).isEmpty();
  }

  @Test
  void recordsOfARevokedPartitionAreForgotten() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    OffsetTracker.Entry e = t.begin("p0", 3);
    t.revoke(List.of("p0"));
    e.finish();
    assertThat(t.toCommit()).isEmpty();
    assertThat(t.inFlight()).isZero();
    assertThat(t.begin("p0", 4)).isNull();
  }

  @Test
  void finishingTwiceCountsOnce() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    OffsetTracker.Entry e = t.begin("p0", 0);
    t.begin("p0", 1);
    e.finish();
    e.finish();
    assertThat(t.toCommit()).isEqualTo(Map.of("p0", 1L));
    assertThat(t.inFlight()).isEqualTo(1);
  }

  @Test
  void recordsFinishedBehindAStuckOneAreNotCountedAsInFlight() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    OffsetTracker.Entry stuck = t.begin("p0", 0);
    for (long o = 1; o <= 1000; o++) {
      t.begin("p0", o).finish();
    }
    assertThat(t.inFlight()).isEqualTo(1);
    assertThat(t.toCommit()).isEmpty();
    stuck.finish();
    assertThat(t.inFlight()).isZero();
    assertThat(t.toCommit()).isEqualTo(Map.of("p0", 1001L));
  }

  @Test
  void aRevokeHandsBackTheFinishedOffsetAndDropsItsRecords() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0", "p1"));
    t.begin("p0", 7).finish();
    OffsetTracker.Entry p0Pending = t.begin("p0", 8);
    t.begin("p0", 9).finish();
    OffsetTracker.Entry p1Pending = t.begin("p1", 0);
    assertThat(t.inFlight()).isEqualTo(2);

    assertThat(t.revoke(List.of("p0"))).isEqualTo(Map.of("p0", 8L));
    assertThat(p0Pending.live()).isFalse();
    assertThat(p1Pending.live()).isTrue();
    assertThat(t.inFlight()).isEqualTo(1);
    // a write that finishes after the revoke is neither counted nor committed here
    p0Pending.finish();
    assertThat(t.inFlight()).isEqualTo(1);
    assertThat(t.toCommit()).isEmpty();
  }

  @Test
  void aRevokeOffersNothingAlreadyCommitted() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    t.begin("p0", 0).finish();
    t.committed(t.toCommit());
    assertThat(t.revoke(List.of("p0"))).isEmpty();
  }

  @Test
  void aPartitionAssignedAgainStartsAfresh() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    OffsetTracker.Entry old = t.begin("p0", 5);
    t.assign(List.of("p0"));
    assertThat(old.live()).isFalse();
    assertThat(t.inFlight()).isZero();
    t.begin("p0", 20).finish();
    assertThat(t.toCommit()).isEqualTo(Map.of("p0", 21L));
  }

  @Test
  void theFirstRecordReadIsNotCommittedBeforeItFinishes() {
    OffsetTracker<String> t = new OffsetTracker<>();
    t.assign(List.of("p0"));
    t.begin("p0", 42);
    assertThat(t.toCommit()).isEmpty();
  }
}
