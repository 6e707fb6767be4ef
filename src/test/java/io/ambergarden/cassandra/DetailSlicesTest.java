package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.cassandra.DetailSlices.Slice;
import java.util.List;
import org.junit.jupiter.api.Test;

class DetailSlicesTest {
  static final long B = 1_767_225_600_000L;
  static final long MIN = 60_000L;

  @Test
  void withoutSlicesEveryEventIsInTheBucketsOwnPartition() {
    assertThat(DetailSlices.partitionOf(B, List.of(), B + 5, "e")).isEqualTo(B);
    assertThat(DetailSlices.partitionsOf(B, List.of())).containsExactly(B);
  }

  @Test
  void anEventBelongsToTheLatestSliceStartingAtOrBeforeIt() {
    List<Slice> slices = List.of(new Slice(B + 10 * MIN, 4), new Slice(B + 20 * MIN, 8));
    assertThat(DetailSlices.sliceOf(slices, B + 9 * MIN)).isNull();
    assertThat(DetailSlices.sliceOf(slices, B + 10 * MIN)).isEqualTo(slices.get(0));
    assertThat(DetailSlices.sliceOf(slices, B + 59 * MIN)).isEqualTo(slices.get(1));
    long p = DetailSlices.partitionOf(B, slices, B + 25 * MIN, "abc");
    assertThat(p).isBetween(B + 20 * MIN, B + 20 * MIN + 7);
    assertThat(DetailSlices.partitionOf(B, slices, B + 25 * MIN, "abc")).as("stable").isEqualTo(p);
  }

  @Test
  void theReadSetHoldsEveryPartitionOnce() {
    List<Slice> slices = List.of(new Slice(B, 2), new Slice(B + MIN, 2));
    assertThat(DetailSlices.partitionsOf(B, slices))
        .containsExactly(B, B + 1, B + MIN, B + MIN + 1);
  }

  @Test
  void saltsSpreadEventsOverEveryPartition() {
    int[] seen = new int[8];
    for (int i = 0; i < 8000; i++) {
      seen[DetailSlices.saltOf(B + i * 10L, "e" + i, 8)]++;
    }
    for (int n : seen) {
      assertThat(n).isBetween(700, 1300);
    }
  }

  @Test
  void aSliceHasAtLeastOneAndFewerThanASecondOfSalts() {
    assertThatThrownBy(() -> new Slice(B, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Slice(B, 1000)).isInstanceOf(IllegalArgumentException.class);
    assertThat(DetailSlices.nextSecond(B + 1)).isEqualTo(B + 1000);
    assertThat(DetailSlices.nextSecond(B)).isEqualTo(B + 1000);
  }
}
