package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeysetMergeTest {
  @Test
  void partitionsThatEndedGiveEverythingInOrder() {
    KeysetMerge.Result r =
        KeysetMerge.merge(List.of(List.of("a", "d"), List.of("b"), List.of()), 3);
    assertThat(r.keys()).containsExactly("a", "b", "d");
    assertThat(r.more()).isFalse();
  }

  @Test
  void aFullPartitionBoundsWhatIsSafeToServe() {
    // the second partition may hold "c" after "b": nothing past "b" is served yet
    KeysetMerge.Result r =
        KeysetMerge.merge(List.of(List.of("a", "d", "e"), List.of("b", "c2", "c3")), 3);
    assertThat(r.keys()).containsExactly("a", "b", "c2", "c3");
    assertThat(r.more()).isTrue();
  }

  @Test
  void theSmallestFullPartitionEndWins() {
    KeysetMerge.Result r =
        KeysetMerge.merge(List.of(List.of("m", "n"), List.of("a", "b"), List.of("c")), 2);
    assertThat(r.keys()).containsExactly("a", "b");
    assertThat(r.more()).isTrue();
  }
}
