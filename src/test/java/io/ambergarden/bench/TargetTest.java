package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TargetTest {
  @Test
  void atMostAndAtLeastCompareWithTheGoalIncludingIt() {
    assertThat(Target.atMost("cost", 0.55, 0.55).met()).isTrue();
    assertThat(Target.atMost("cost", 0.56, 0.55).met()).isFalse();
    assertThat(Target.atLeast("throughput", 0.85, 0.85).met()).isTrue();
    assertThat(Target.atLeast("throughput", 0.84, 0.85).met()).isFalse();
  }

  @Test
  void aFigureTheRunCouldNotMeasureNeverMeetsItsGoal() {
    Target t = Target.atMost("gc pause p99 ms", Double.NaN, 10);

    assertThat(t.met()).isFalse();
    assertThat(t.toJson().encode())
        .isEqualTo("{\"name\":\"gc pause p99 ms\",\"value\":null,\"goal\":10.0,\"met\":false}");
  }

  @Test
  void rendersTheFieldsTheResultsFileCarries() {
    assertThat(Target.atLeast("(b) against (a')", 0.9, 0.85).toJson().encode())
        .isEqualTo("{\"name\":\"(b) against (a')\",\"value\":0.9,\"goal\":0.85,\"met\":true}");
  }
}
