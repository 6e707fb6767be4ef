package io.ambergarden.web.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.event.Event;
import io.ambergarden.web.ApiException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveFilterTest {
  static final long NOW = 1_764_000_000_000L;
  static final long RETENTION = 86_400_000L;

  static Event ev(String device, String type, Integer code, long ts) {
    return new Event(device, ts, "", type, null, code, Map.of(), Map.of(), null);
  }

  @Test
  void emptyFilterMatchesEverything() {
    LiveFilter f = LiveFilter.parse(null, "", null, null, 10, NOW, RETENTION);
    assertThat(f.matches(ev("a", null, null, NOW))).isTrue();
  }

  @Test
  void eachDimensionNarrows() {
    LiveFilter f = LiveFilter.parse("a, b", "pump", "500,503", null, 10, NOW, RETENTION);
    assertThat(f.matches(ev("a", "pump", 500, NOW))).isTrue();
    assertThat(f.matches(ev("c", "pump", 500, NOW))).isFalse();
    assertThat(f.matches(ev("b", "valve", 503, NOW))).isFalse();
    assertThat(f.matches(ev("b", null, 503, NOW))).isFalse();
    assertThat(f.matches(ev("b", "pump", 200, NOW))).isFalse();
    assertThat(f.matches(ev("b", "pump", null, NOW))).isFalse();
  }

  @Test
  void sinceFiltersOlderEventsAndNeedsABoundedReplay() {
    LiveFilter f = LiveFilter.parse("a", null, null, Long.toString(NOW - 1000), 10, NOW, RETENTION);
    assertThat(f.since()).isEqualTo(NOW - 1000);
    assertThat(f.matches(ev("a", null, null, NOW - 1001))).isFalse();
    assertThat(f.matches(ev("a", null, null, NOW - 1000))).isTrue();
    assertThatThrownBy(
            () -> LiveFilter.parse(null, null, null, Long.toString(NOW - 1000), 10, NOW, RETENTION))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("since");
    assertThatThrownBy(
            () ->
                LiveFilter.parse(
                    "a", null, null, Long.toString(NOW - 2 * RETENTION), 10, NOW, RETENTION))
        .hasMessageContaining("since");
    assertThatThrownBy(
            () ->
                LiveFilter.parse("a", null, null, Long.toString(NOW + 60_000), 10, NOW, RETENTION))
        .hasMessageContaining("since");
  }

  @Test
  void badValuesAre400sNamingTheParameter() {
    assertThatThrownBy(() -> LiveFilter.parse("a b", null, null, null, 10, NOW, RETENTION))
        .hasMessageContaining("devices");
    assertThatThrownBy(() -> LiveFilter.parse(null, null, "5x", null, 10, NOW, RETENTION))
        .hasMessageContaining("codes");
    assertThatThrownBy(() -> LiveFilter.parse("a,b,c", null, null, null, 2, NOW, RETENTION))
        .hasMessageContaining("devices");
    assertThatThrownBy(() -> LiveFilter.parse(null, "a,,b", null, null, 10, NOW, RETENTION))
        .hasMessageContaining("types");
    assertThat(
            ((ApiException)
                    org.assertj.core.api.Assertions.catchThrowable(
                        () -> LiveFilter.parse(null, null, "x", null, 10, NOW, RETENTION)))
                .status())
        .isEqualTo(400);
  }
}
