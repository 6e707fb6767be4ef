package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaAgreementTest {
  private static final UUID A = UUID.randomUUID();
  private static final UUID B = UUID.randomUUID();

  @Test
  void nodesThatAreUpAgreeWhenAllAnsweredWithOneVersion() {
    assertThat(round(Map.of("n1", A, "n2", A, "n3", A), List.of()).agreed()).isTrue();
    // a node the driver sees down is left out, as the driver's own check does
    assertThat(round(Map.of("n1", A, "n2", A), List.of("n3")).agreed()).isTrue();
  }

  @Test
  void twoVersionsAnUnansweredNodeOrNoAnswerAtAllAreNoAgreement() {
    assertThat(round(Map.of("n1", A, "n2", B), List.of()).agreed()).isFalse();
    Map<String, UUID> silent = new HashMap<>(Map.of("n1", A, "n2", A));
    silent.put("n3", null);
    assertThat(round(silent, List.of()).agreed()).isFalse();
    assertThat(round(Map.of(), List.of("n1")).agreed()).isFalse();
  }

  private static SchemaAgreement.Round round(Map<String, UUID> versions, List<String> down) {
    return new SchemaAgreement.Round(versions, down);
  }
}
