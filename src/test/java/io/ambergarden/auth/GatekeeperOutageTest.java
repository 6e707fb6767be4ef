package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigException;
import io.ambergarden.config.ConfigLoader;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The gatekeeper with a key store that cannot be read (no Cassandra client): what a pod started
 * during a Cassandra outage can and cannot verify, and the per-address limit on failures.
 */
class GatekeeperOutageTest {
  private final ApiKeys.Minted fixed = ApiKeys.mint();

  private Gatekeeper gate(Map<String, String> overrides) {
    Map<String, String> cfg = new HashMap<>(overrides);
    AmberConfig config = ConfigLoader.load(Map.of(), new Properties(), cfg);
    StaticKeys keys =
        StaticKeys.parse(
            "[{\"key\":\""
                + fixed.text()
                + "\",\"name\":\"gateway\",\"scopes\":[\"events:write\"],\"ratePerSecond\":50}]");
    return new Gatekeeper(
        config.access(), new KeyStore(null, "amber"), keys, null, Clock.systemUTC());
  }

  private static AuthException failure(Future<Principal> f) {
    assertThat(f.failed()).as("refused").isTrue();
    assertThat(f.cause()).isInstanceOf(AuthException.class);
    return (AuthException) f.cause();
  }

  @Test
  void aStaticKeyIsVerifiedWithoutTheStore() {
    Gatekeeper g = gate(Map.of());
    Future<Principal> p =
        g.authenticate(new Credential(Credential.Type.API_KEY, fixed.text()), "a");
    assertThat(p.succeeded()).as("%s", p.cause()).isTrue();
    assertThat(p.result().name()).isEqualTo("gateway");
    assertThat(p.result().has(Scope.EVENTS_WRITE)).isTrue();
    assertThat(p.result().has(Scope.EVENTS_READ)).isFalse();
    assertThat(p.result().ratePerSecond()).isEqualTo(50);
    assertThat(g.stillValid(p.result()).result()).isTrue();
  }

  @Test
  void aStaticKeyWithAWrongSecretIsInvalid() {
    Gatekeeper g = gate(Map.of());
    String wrong = fixed.text().substring(0, fixed.text().length() - 43) + "A".repeat(43);
    assertThat(
            failure(g.authenticate(new Credential(Credential.Type.API_KEY, wrong), "a")).reason())
        .isEqualTo(AuthException.Reason.INVALID);
  }

  @Test
  void aStoredKeyThatCannotBeReadIsUnavailableWithARetryHint() {
    Gatekeeper g = gate(Map.of());
    AuthException e =
        failure(
            g.authenticate(
                new Credential(Credential.Type.API_KEY, ApiKeys.mint().text()), "client"));
    assertThat(e.reason()).isEqualTo(AuthException.Reason.UNAVAILABLE);
    assertThat(e.retryAfterSeconds()).isPositive();
  }

  @Test
  void anAddressThatFailsTooOftenIsRefusedBeforeAnyLookupAndOthersAreNot() {
    Gatekeeper g = gate(Map.of("auth.address.failures-per-minute", "5"));
    Credential bad = new Credential(Credential.Type.API_KEY, "amb_not-a-key");
    for (int i = 0; i < 5; i++) {
      assertThat(failure(g.authenticate(bad, "10.0.0.9")).reason())
          .isEqualTo(AuthException.Reason.INVALID);
    }
    AuthException throttled = failure(g.authenticate(bad, "10.0.0.9"));
    assertThat(throttled.reason()).isEqualTo(AuthException.Reason.THROTTLED);
    assertThat(throttled.retryAfterSeconds()).isBetween(1, 12);
    // even a valid key waits: the address is not looked at further
    assertThat(
            failure(
                    g.authenticate(
                        new Credential(Credential.Type.API_KEY, fixed.text()), "10.0.0.9"))
                .reason())
        .isEqualTo(AuthException.Reason.THROTTLED);
    assertThat(
            g.authenticate(new Credential(Credential.Type.API_KEY, fixed.text()), "10.0.0.10")
                .succeeded())
        .isTrue();
  }

  @Test
  void unavailableAnswersDoNotCountAgainstTheAddress() {
    Gatekeeper g = gate(Map.of("auth.address.failures-per-minute", "2"));
    for (int i = 0; i < 10; i++) {
      assertThat(
              failure(
                      g.authenticate(
                          new Credential(Credential.Type.API_KEY, ApiKeys.mint().text()), "n"))
                  .reason())
          .isEqualTo(AuthException.Reason.UNAVAILABLE);
    }
  }

  @Test
  void aBadStaticKeysFileNamesTheKeyAndNeverTheSecret() {
    String secretish = "amb_0123456789abcdef_short";
    assertThatThrownBy(
            () ->
                StaticKeys.parse("[{\"key\":\"" + secretish + "\",\"name\":\"x\",\"scopes\":[]}]"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("auth.static-keys-file: entry 0")
        .hasMessageNotContaining(secretish);
    assertThatThrownBy(
            () ->
                StaticKeys.parse(
                    "[{\"key\":\""
                        + fixed.text()
                        + "\",\"name\":\"x\",\"scopes\":[\"events:fly\"]}]"))
        .hasMessageContaining("unknown scope events:fly");
    assertThatThrownBy(
            () ->
                StaticKeys.parse(
                    "[{\"key\":\""
                        + fixed.text()
                        + "\",\"name\":\"x\",\"scopes\":[\"admin\"]},{\"key\":\""
                        + fixed.text()
                        + "\",\"name\":\"y\",\"scopes\":[\"admin\"]}]"))
        .hasMessageContaining("appears twice");
    assertThatThrownBy(() -> StaticKeys.parse("{}")).isInstanceOf(ConfigException.class);
  }
}
