package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.cassandra.DetailSlices.Slice;
import java.util.List;
import org.junit.jupiter.api.Test;

class SliceStraysTest {
  static final long B = 3_600_000L * 1000;
  static final Slice FIRST = new Slice(B + 60_000, 4);
  static final Slice SECOND = new Slice(B + 120_000, 8);
  static final List<Slice> SLICES = List.of(FIRST, SECOND);

  static long home(long ts, String id) {
    return DetailSlices.partitionOf(B, SLICES, ts, id);
  }

  @Test
  void aColdBucketCountsEveryRow() {
    SliceStrays s = new SliceStrays(B, List.of());
    assertThat(s.counts(B, B + 5, "a")).isTrue();
    assertThat(s.counts(B, B + 5, "a")).isTrue();
    assertThat(s.strays()).isZero();
  }

  @Test
  void rowsInTheirOwnPartitionCountWithoutBeingRemembered() {
    SliceStrays s = new SliceStrays(B, SLICES);
    assertThat(s.counts(B, B + 1, "a")).isTrue();
    long ts = SECOND.start() + 7;
    assertThat(s.counts(home(ts, "b"), ts, "b")).isTrue();
    assertThat(s.strays()).isZero();
  }

  @Test
  void anEventStoredAsAStrayAndInItsSliceCountsOnce() {
    SliceStrays s = new SliceStrays(B, SLICES);
    long ts = SECOND.start() + 42;
    // written to the first slice before the split was known, then again where it belongs
    long stray = DetailSlices.partitionOf(B, List.of(FIRST), ts, "x");
    assertThat(stray).isLessThan(home(ts, "x"));
    assertThat(s.counts(stray, ts, "x")).isTrue();
    assertThat(s.counts(home(ts, "x"), ts, "x")).isFalse();
    assertThat(s.strays()).isEqualTo(1);
  }

  @Test
  void aStrayInTheBucketsOwnPartitionAndOneInAnEarlierSliceCountOnce() {
    SliceStrays s = new SliceStrays(B, SLICES);
    long ts = SECOND.start() + 3;
    assertThat(s.counts(B, ts, "y")).isTrue();
    assertThat(s.counts(DetailSlices.partitionOf(B, List.of(FIRST), ts, "y"), ts, "y")).isFalse();
    assertThat(s.counts(home(ts, "y"), ts, "y")).isFalse();
  }

  @Test
  void aStrayWithoutACopyWhereItBelongsCounts() {
    SliceStrays s = new SliceStrays(B, SLICES);
    long ts = FIRST.start() + 9;
    assertThat(s.counts(B, ts, "z")).isTrue();
    long other = FIRST.start() + 10;
    assertThat(s.counts(home(other, "w"), other, "w")).isTrue();
  }
}
