package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class DevicePatternsTest {
  @Test
  void aPrefixPatternAllowsItsDevicesAndNoOthers() {
    DevicePatterns p = DevicePatterns.of(List.of("M-*"));
    assertThat(p.bound()).isTrue();
    assertThat(p.allows("M-1")).isTrue();
    assertThat(p.allows("M-10086")).isTrue();
    assertThat(p.allows("M-")).isTrue();
    assertThat(p.allows("N-1")).isFalse();
    assertThat(p.allows("m-1")).as("case matters, as in device ids").isFalse();
    assertThat(p.allows("XM-1")).isFalse();
    assertThat(p.allows(null)).isFalse();
  }

  @Test
  void exactIdsAndInnerWildcardsMatchWholeIds() {
    DevicePatterns p = DevicePatterns.of(List.of("pump-7", "site:*:valve"));
    assertThat(p.allows("pump-7")).isTrue();
    assertThat(p.allows("pump-70")).isFalse();
    assertThat(p.allows("site:3:valve")).isTrue();
    assertThat(p.allows("site::valve")).isTrue();
    assertThat(p.allows("site:3:valve2")).isFalse();
  }

  @Test
  void aWildcardNeverSpansCharactersOutsideTheIdAlphabet() {
    DevicePatterns p = DevicePatterns.of(List.of("M-*"));
    assertThat(p.allows("M-1/../N-2")).isFalse();
    assertThat(p.allows("M-1%2F")).isFalse();
    assertThat(p.allows("M-1 x")).isFalse();
  }

  @Test
  void noPatternsMeansEveryDevice() {
    assertThat(DevicePatterns.of(List.of()).bound()).isFalse();
    assertThat(DevicePatterns.all().allows("anything")).isTrue();
  }

  @Test
  void badPatternsAreRefusedNamingThePattern() {
    assertThatThrownBy(() -> DevicePatterns.of(List.of("M 1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'M 1'");
    assertThatThrownBy(() -> DevicePatterns.of(List.of("*"))).hasMessageContaining("binds nothing");
    assertThatThrownBy(() -> DevicePatterns.of(java.util.Collections.nCopies(101, "a")))
        .hasMessageContaining("at most 100");
  }
}
