package io.ambergarden.web.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.auth.Scope;
import io.ambergarden.web.ApiException;
import org.junit.jupiter.api.Test;

class AdminKeyRoutesTest {
  private static ApiException refused(String body) {
    try {
      AdminKeyRoutes.NewKey.parse(body);
    } catch (ApiException e) {
      return e;
    }
    throw new AssertionError("accepted: " + body);
  }

  private static String field(ApiException e) {
    return e.errors() == null ? null : e.errors().getJsonObject(0).getString("field");
  }

  @Test
  void aValidRequestBecomesANewKey() {
    AdminKeyRoutes.NewKey k =
        AdminKeyRoutes.NewKey.parse(
            "{\"name\":\" meter 7 \",\"scopes\":[\"events:write\",\"events:read\"],"
                + "\"devices\":[\"M-7\"],\"ratePerSecond\":5}");
    assertThat(k.name()).isEqualTo("meter 7");
    assertThat(k.scopes()).containsExactlyInAnyOrder(Scope.EVENTS_WRITE, Scope.EVENTS_READ);
    assertThat(k.devices()).containsExactly("M-7");
    assertThat(k.ratePerSecond()).isEqualTo(5);
    assertThat(AdminKeyRoutes.NewKey.parse("{\"name\":\"n\",\"scopes\":[\"admin\"]}").devices())
        .isEmpty();
  }

  @Test
  void everyBadFieldIsA400NamingIt() {
    assertThat(field(refused("{\"scopes\":[\"admin\"]}"))).isEqualTo("name");
    assertThat(field(refused("{\"name\":\"\",\"scopes\":[\"admin\"]}"))).isEqualTo("name");
    assertThat(field(refused("{\"name\":\"n\"}"))).isEqualTo("scopes");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[]}"))).isEqualTo("scopes");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"root\"]}"))).isEqualTo("scopes");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[1]}"))).isEqualTo("scopes");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"admin\"],\"devices\":\"M-*\"}")))
        .isEqualTo("devices");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"admin\"],\"devices\":[\"a b\"]}")))
        .isEqualTo("devices");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"admin\"],\"ratePerSecond\":0}")))
        .isEqualTo("ratePerSecond");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"admin\"],\"ratePerSecond\":1.5}")))
        .isEqualTo("ratePerSecond");
    assertThat(field(refused("{\"name\":\"n\",\"scopes\":[\"admin\"],\"secret\":\"x\"}")))
        .isEqualTo("secret");
    assertThat(refused("[1]").status()).isEqualTo(400);
    assertThat(refused("not json").status()).isEqualTo(400);
    assertThatThrownBy(() -> AdminKeyRoutes.NewKey.parse(null)).isInstanceOf(ApiException.class);
  }
}
