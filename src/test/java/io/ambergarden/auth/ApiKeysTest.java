package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApiKeysTest {
  @Test
  void aMintedKeyParsesAndMatchesOnlyItsOwnHash() {
    ApiKeys.Minted a = ApiKeys.mint();
    ApiKeys.Minted b = ApiKeys.mint();
    assertThat(a.text()).startsWith("amb_").hasSize(4 + 16 + 1 + 43);
    ApiKeys.Presented p = ApiKeys.parse(a.text()).orElseThrow();
    assertThat(p.id()).isEqualTo(a.id());
    assertThat(ApiKeys.matches(p, a.hash())).isTrue();
    assertThat(ApiKeys.matches(p, b.hash())).isFalse();
    assertThat(ApiKeys.matches(p, null)).isFalse();
  }

  @Test
  void theSecretHas256RandomBitsAndIsNotInTheHash() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      assertThat(seen.add(ApiKeys.mint().text())).isTrue();
    }
    ApiKeys.Minted m = ApiKeys.mint();
    String secret = m.text().substring(21);
    assertThat(java.util.Base64.getUrlDecoder().decode(secret)).hasSize(32);
    assertThat(m.hash()).hasSize(32).isNotEqualTo(secret.getBytes());
    assertThat(m.toString()).doesNotContain(secret);
  }

  @Test
  void malformedKeysDoNotParse() {
    String good = ApiKeys.mint().text();
    assertThat(ApiKeys.parse(good.substring(1))).isEmpty();
    assertThat(ApiKeys.parse(good + "x")).isEmpty();
    assertThat(ApiKeys.parse(good.replace('_', '-'))).isEmpty();
    assertThat(ApiKeys.parse("amb_ZZZZZZZZZZZZZZZZ_" + good.substring(21))).isEmpty();
    assertThat(ApiKeys.parse(null)).isEmpty();
    assertThat(ApiKeys.parse("")).isEmpty();
  }

  @Test
  void aTamperedSecretDoesNotMatch() {
    ApiKeys.Minted m = ApiKeys.mint();
    char last = m.text().charAt(m.text().length() - 1);
    String tampered = m.text().substring(0, m.text().length() - 1) + (last == 'A' ? 'B' : 'A');
    assertThat(ApiKeys.matches(ApiKeys.parse(tampered).orElseThrow(), m.hash())).isFalse();
  }
}
