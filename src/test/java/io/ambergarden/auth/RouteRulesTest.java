package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RouteRulesTest {
  @Test
  void eachApiRouteNeedsItsScope() {
    assertThat(RouteRules.of("POST", "/api/v1/events").scope()).isEqualTo(Scope.EVENTS_WRITE);
    assertThat(RouteRules.of("GET", "/api/v1/devices/M-1/events").scope())
        .isEqualTo(Scope.EVENTS_READ);
    assertThat(RouteRules.of("GET", "/api/v1/stats/abnormal").scope()).isEqualTo(Scope.EVENTS_READ);
    assertThat(RouteRules.of("GET", "/api/v1/live").scope()).isEqualTo(Scope.LIVE_READ);
    assertThat(RouteRules.of("POST", "/api/v1/live/tickets").scope()).isEqualTo(Scope.LIVE_READ);
    assertThat(RouteRules.of("POST", "/api/v1/devices/M-1/images").scope())
        .isEqualTo(Scope.MEDIA_WRITE);
    assertThat(RouteRules.of("GET", "/api/v1/images/abc/content").scope())
        .isEqualTo(Scope.MEDIA_READ);
    assertThat(RouteRules.of("DELETE", "/api/v1/admin/keys/0123456789abcdef").scope())
        .isEqualTo(Scope.ADMIN);
    assertThat(RouteRules.of("GET", "/metrics").scope()).isEqualTo(Scope.ADMIN);
  }

  @Test
  void deviceRoutesNameTheirDevice() {
    RouteRules.Rule r = RouteRules.of("GET", "/api/v1/devices/M-7/latest");
    assertThat(r.devices()).isEqualTo(RouteRules.Devices.PATH);
    assertThat(r.deviceId()).isEqualTo("M-7");
    assertThat(RouteRules.of("GET", "/api/v1/devices/M-7/latest/").deviceId()).isEqualTo("M-7");
    assertThat(RouteRules.of("GET", "/api/v1/device-types/pump/events").devices())
        .isEqualTo(RouteRules.Devices.ACROSS);
    assertThat(RouteRules.of("POST", "/api/v1/events").devices())
        .isEqualTo(RouteRules.Devices.BODY);
  }

  @Test
  void healthTheDashboardAndShareLinksAreOpen() {
    assertThat(RouteRules.of("GET", "/health/ready").open()).isTrue();
    assertThat(RouteRules.of("GET", "/").open()).isTrue();
    assertThat(RouteRules.of("GET", "/auth.js").open()).isTrue();
    assertThat(RouteRules.of("GET", "/openapi.json").open()).isTrue();
    assertThat(RouteRules.of("GET", "/api/v1/shares/s1").open()).isTrue();
  }

  @Test
  void anApiRouteWithoutARuleNeedsAdmin() {
    assertThat(RouteRules.of("GET", "/api/v2/whatever").scope()).isEqualTo(Scope.ADMIN);
    assertThat(RouteRules.of("PUT", "/api/v1/events").scope()).isEqualTo(Scope.ADMIN);
    assertThat(RouteRules.of("GET", "/api").scope()).isEqualTo(Scope.ADMIN);
    assertThat(RouteRules.of("GET", "/api/v1/devices//events").scope()).isEqualTo(Scope.ADMIN);
  }
}
