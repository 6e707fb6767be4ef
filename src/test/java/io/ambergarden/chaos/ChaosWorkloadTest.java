package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.chaos.history.Op;
import org.junit.jupiter.api.Test;

class ChaosWorkloadTest {
  @Test
  void aPostIsOkOn2xxFailedWhenRefusedOr4xxAndOfUnknownOutcomeOtherwise() {
    assertThat(ChaosWorkload.postType("202")).isEqualTo(Op.Type.OK);
    assertThat(ChaosWorkload.postType("400")).isEqualTo(Op.Type.FAIL);
    assertThat(ChaosWorkload.postType("429")).isEqualTo(Op.Type.FAIL);
    assertThat(ChaosWorkload.postType("refused")).isEqualTo(Op.Type.FAIL);
    // a 503 may follow a partial write; a timeout or a reset may follow a whole one
    assertThat(ChaosWorkload.postType("503")).isEqualTo(Op.Type.INFO);
    assertThat(ChaosWorkload.postType("timeout")).isEqualTo(Op.Type.INFO);
    assertThat(ChaosWorkload.postType("no connection")).isEqualTo(Op.Type.INFO);
  }
}
