package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FieldRulesTest {

  @Test
  void anIdOfTheCharsetWithinTheLengthPasses() {
    assertThat(FieldRules.checkId("M-10086.a_b:c", 128, "must be ")).isNull();
    assertThat(FieldRules.checkId("...", 128, "must be ")).isNull();
  }

  @Test
  void theMessageStartsWithTheLeadOfTheCaller() {
    assertThat(FieldRules.checkId("", 32, "tag names must be "))
        .isEqualTo("tag names must be 1-32 characters of letters, digits and . _ : - (got 0)");
    assertThat(FieldRules.checkId("a b", 8, "metric names must be "))
        .isEqualTo(
            "metric names must be 1-8 characters of letters, digits and . _ : - "
                + "(invalid character U+0020 at position 1)");
    assertThat(FieldRules.checkId("..", 8, "must be ")).isEqualTo("must not be '.' or '..'");
  }

  @Test
  void describeQuotesPrintableAsciiAndNamesOtherCodePoints() {
    assertThat(FieldRules.describe("a/b", 1)).isEqualTo("'/'");
    assertThat(FieldRules.describe("a\u00e9", 1)).isEqualTo("U+00E9");
    assertThat(FieldRules.describe("x\ud83d\ude00", 1)).isEqualTo("U+1F600");
  }
}
