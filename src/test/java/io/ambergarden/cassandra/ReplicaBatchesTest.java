package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaBatchesTest {
  /** Items "node:size". */
  private static List<List<String>> group(List<String> items, int maxItems, int maxBytes) {
    return ReplicaBatches.group(
        items,
        s -> s.startsWith("?") ? null : s.split(":")[0],
        s -> Integer.parseInt(s.split(":")[1]),
        maxItems,
        maxBytes);
  }

  @Test
  void itemsOfTheSameReplicasShareAGroupAndOthersDoNot() {
    List<List<String>> groups = group(List.of("a:1", "b:1", "a:2", "b:3", "a:4"), 10, 1000);

    assertThat(groups)
        .containsExactlyInAnyOrder(List.of("a:1", "a:2", "a:4"), List.of("b:1", "b:3"));
  }

  @Test
  void aGroupClosesAtMaxItemsAndBeforeMaxBytes() {
    assertThat(group(List.of("a:1", "a:1", "a:1", "a:1", "a:1"), 2, 1000))
        .containsExactly(List.of("a:1", "a:1"), List.of("a:1", "a:1"), List.of("a:1"));
    assertThat(group(List.of("a:40", "a:40", "a:40"), 10, 100))
        .containsExactly(List.of("a:40", "a:40"), List.of("a:40"));
    assertThat(group(List.of("a:500", "a:1"), 10, 100))
        .containsExactly(List.of("a:500"), List.of("a:1"));
  }

  @Test
  void unknownReplicasAndGroupingOffSendEveryItemAlone() {
    assertThat(group(List.of("?x:1", "a:1", "?y:1"), 10, 100))
        .containsExactlyInAnyOrder(List.of("?x:1"), List.of("?y:1"), List.of("a:1"));
    assertThat(group(List.of("a:1", "a:1"), 1, 100))
        .containsExactly(List.of("a:1"), List.of("a:1"));
    assertThat(group(List.of(), 10, 100)).isEmpty();
  }
}
