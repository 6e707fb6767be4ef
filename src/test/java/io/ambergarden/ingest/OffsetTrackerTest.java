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
}
