package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultTallyTest {
  @Test
  void triesCountByKindAndOutcome() {
    FaultTally t = new FaultTally();
    t.add("slow-client", "slow-within-timeout: 202");
    t.add("slow-client", "slow-within-timeout: 202");
    t.add("close-mid-body", "half-body-then-close: cut");
    assertThat(t.snapshot())
        .isEqualTo(
            Map.of(
                "slow-client", Map.of("slow-within-timeout: 202", 2L),
                "close-mid-body", Map.of("half-body-then-close: cut", 1L)));
    assertThat(t.total("slow-client")).isEqualTo(2);
  }

  @Test
  void outcomesAndKindsPastTheirBoundsCountAsOther() {
    FaultTally t = new FaultTally();
    for (int i = 0; i < FaultTally.MAX_OUTCOMES + 10; i++) {
      t.add("k", "o" + i);
    }
    for (int i = 0; i < FaultTally.MAX_KINDS + 3; i++) {
      t.add("kind" + i, "x");
    }
    Map<String, Map<String, Long>> s = t.snapshot();
    assertThat(s.get("k")).hasSize(FaultTally.MAX_OUTCOMES + 1).containsEntry("other", 10L);
    assertThat(s).hasSize(FaultTally.MAX_KINDS + 1);
    assertThat(s.get("other")).containsEntry("x", 4L);
    assertThat(t.total("k")).isEqualTo(FaultTally.MAX_OUTCOMES + 10);
  }

  @Test
  void theSnapshotIsACopy() {
    FaultTally t = new FaultTally();
    t.add("k", "o");
    Map<String, Map<String, Long>> s = t.snapshot();
    t.add("k", "o");
    assertThat(s.get("k").get("o")).isEqualTo(1L);
  }
}
