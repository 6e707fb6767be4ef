package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FleetFilterTest {
  @Test
  void aDeviceThatChangedStatusIsOutOfTheStatusFacet() {
    FleetFilter f = new FleetFilter(null, "fault", null);
    assertThat(f.matches("charger", "fault", true)).isTrue();
    assertThat(f.matches("charger", "normal", false)).isFalse();
    assertThat(f.inFacet("charger", "normal", false)).as("stale pointer").isFalse();
  }

  @Test
  void abnormalFalseIsCheckedOnTheStateNotByAFacet() {
    FleetFilter f = new FleetFilter("charger", null, false);
    assertThat(f.facet()).isEqualTo("type\ncharger");
    assertThat(f.matches("charger", "normal", false)).isTrue();
    assertThat(f.matches("charger", "fault", true)).isFalse();
    // still in the facet: left out, but its pointer is not stale
    assertThat(f.inFacet("charger", "fault", true)).isTrue();
  }

  @Test
  void aTypeChangeLeavesTheOldTypesFacet() {
    FleetFilter f = new FleetFilter("charger", null, null);
    assertThat(f.matches("meter", "normal", false)).isFalse();
    assertThat(f.inFacet("meter", "normal", false)).isFalse();
  }

  @Test
  void statusWithAbnormalReadsTheStatusFacetAndChecksAbnormal() {
    FleetFilter f = new FleetFilter(null, "degraded", true);
    assertThat(f.facet()).isEqualTo("status\ndegraded");
    assertThat(f.matches(null, "degraded", false)).isFalse();
    assertThat(f.matches(null, "degraded", true)).isTrue();
  }
}
