package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CredentialTest {
  private static final String KEY = ApiKeys.mint().text();

  @Test
  void bearerKeysJwtsHeaderKeysAndTicketsAreToldApart() {
    assertThat(Credential.from("Bearer " + KEY, null, null).orElseThrow())
        .isEqualTo(new Credential(Credential.Type.API_KEY, KEY));
    assertThat(Credential.from("bearer a.b.c", null, null).orElseThrow().type())
        .isEqualTo(Credential.Type.JWT);
    assertThat(Credential.from(null, KEY, null).orElseThrow().type())
        .isEqualTo(Credential.Type.API_KEY);
    assertThat(Credential.from(null, null, "t").orElseThrow().type())
        .isEqualTo(Credential.Type.TICKET);
    assertThat(Credential.from(null, null, "t").orElseThrow().inHeader()).isFalse();
  }

  @Test
  void theAuthorizationHeaderWinsAndOtherSchemesAreInvalidNotMissing() {
    assertThat(Credential.from("Bearer " + KEY, "other", "t").orElseThrow().value()).isEqualTo(KEY);
    Credential basic = Credential.from("Basic dXNlcjpwdw==", null, null).orElseThrow();
    assertThat(basic.value()).isEmpty();
    assertThat(Credential.from(null, null, null)).isEmpty();
    assertThat(Credential.from(" ", "", "")).isEmpty();
  }

  @Test
  void theValueNeverAppearsInToString() {
    assertThat(Credential.from("Bearer " + KEY, null, null).orElseThrow().toString())
        .doesNotContain(KEY.substring(10));
  }
}
