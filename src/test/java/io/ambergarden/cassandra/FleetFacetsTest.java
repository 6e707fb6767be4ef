package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FleetFacetsTest {
  @Test
  void aDeviceWithoutTypeOrStatusIsOnlyInAll() {
    assertThat(FleetFacets.of(null, null, false)).containsExactly(FleetFacets.ALL);
  }

  @Test
  void anAbnormalTypedDeviceIsInSixFacets() {
    assertThat(FleetFacets.of("charger", "fault", true))
        .containsExactly(
            "all",
            "type\ncharger",
            "status\nfault",
            "abnormal",
            "type\ncharger\nstatus\nfault",
            "type\ncharger\nabnormal");
  }

  @Test
  void aFilterReadsTheNarrowestFacetItNames() {
    assertThat(FleetFacets.forFilter(null, null, null)).isEqualTo("all");
    assertThat(FleetFacets.forFilter(null, null, false)).isEqualTo("all");
    assertThat(FleetFacets.forFilter(null, null, true)).isEqualTo("abnormal");
    assertThat(FleetFacets.forFilter("charger", null, true)).isEqualTo("type\ncharger\nabnormal");
    assertThat(FleetFacets.forFilter("charger", "fault", true))
        .isEqualTo("type\ncharger\nstatus\nfault");
    assertThat(FleetFacets.forFilter(null, "fault", true)).isEqualTo("status\nfault");
  }

  @Test
  void everyFilteredFacetIsOneTheMatchingDevicesAreIn() {
    String[] types = {null, "charger"};
    String[] statuses = {null, "fault"};
    Boolean[] abnormal = {null, true, false};
    for (String t : types) {
      for (String s : statuses) {
        for (Boolean a : abnormal) {
          String facet = FleetFacets.forFilter(t, s, a);
          // a device that matches the filter (with the filtered values set) is in the facet read
          boolean ab = a == null || a;
          assertThat(FleetFacets.of(t == null ? "x" : t, s == null ? "y" : s, ab))
              .as("filter %s/%s/%s", t, s, a)
              .contains(facet);
        }
      }
    }
  }
}
