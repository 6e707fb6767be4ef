package io.ambergarden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.auth.KeyRecord;
import io.ambergarden.auth.Scope;
import org.junit.jupiter.api.Test;

class KeysCommandTest {
  @Test
  void createOptionsBecomeAKey() {
    KeyRecord k =
        KeysCommand.parseCreate(
            new String[] {
              "--name",
              "meters",
              "--scopes",
              "events:write,events:read",
              "--devices",
              "M-*",
              "--rate",
              "20"
            });
    assertThat(k.name()).isEqualTo("meters");
    assertThat(k.scopes()).containsExactlyInAnyOrder(Scope.EVENTS_WRITE, Scope.EVENTS_READ);
    assertThat(k.devices()).containsExactly("M-*");
    assertThat(k.ratePerSecond()).isEqualTo(20);
  }

  @Test
  void badOptionsAreRefusedWithTheReason() {
    assertThatThrownBy(() -> KeysCommand.parseCreate(new String[] {"--name", "x"}))
        .hasMessageContaining("--scopes");
    assertThatThrownBy(
            () -> KeysCommand.parseCreate(new String[] {"--name", "x", "--scopes", "root"}))
        .hasMessageContaining("unknown scope root");
    assertThatThrownBy(
            () ->
                KeysCommand.parseCreate(
                    new String[] {"--name", "x", "--scopes", "admin", "--devices", "M 1"}))
        .hasMessageContaining("'M 1'");
    assertThatThrownBy(() -> KeysCommand.parseCreate(new String[] {"--name"}))
        .hasMessageContaining("needs a value");
  }

  @Test
  void withoutASubcommandItPrintsUsage() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code =
        KeysCommand.run(
            io.ambergarden.config.ConfigLoader.load(
                java.util.Map.of(), new java.util.Properties(), java.util.Map.of()),
            new String[] {"keys"},
            System.out,
            new java.io.PrintStream(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("usage: keys create");
  }
}
