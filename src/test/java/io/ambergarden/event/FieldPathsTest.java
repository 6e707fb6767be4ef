package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FieldPathsTest {

  @Test
  void aPrintableNameIsPrefixedAsIs() {
    assertThat(FieldPaths.path("metrics.", "temperature")).isEqualTo("metrics.temperature");
    assertThat(FieldPaths.path("", "temperature")).isEqualTo("temperature");
  }

  @Test
  void controlAndNonAsciiCharactersAreEscaped() {
    assertThat(FieldPaths.path("tags.", "a\u0001\u00e9\"")).isEqualTo("tags.a\\u0001\\u00E9\"");
  }

  @Test
  void aLongNameIsCutAtEightyCharactersWithAnEllipsis() {
    assertThat(FieldPaths.path("tags.", "x".repeat(80))).isEqualTo("tags." + "x".repeat(80));
    assertThat(FieldPaths.path("tags.", "x".repeat(81)))
        .isEqualTo("tags." + "x".repeat(80) + "...");
    assertThat(FieldPaths.path("", "\u0000".repeat(1000))).isEqualTo("\\u0000".repeat(80) + "...");
  }

  @Test
  void appendNameEscapesLikePath() {
    assertThat(FieldPaths.appendName(new StringBuilder("payload."), "a\tb").toString())
        .isEqualTo("payload.a\\u0009b");
  }
}
