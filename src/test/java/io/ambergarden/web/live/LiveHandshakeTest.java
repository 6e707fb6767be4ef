package io.ambergarden.web.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.Event;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveHandshakeTest {
  @Test
  void onlyAWebSocketUpgradeIsAnUpgrade() {
    assertThat(LiveHandshake.isUpgrade("keep-alive, Upgrade", "WebSocket")).isTrue();
    assertThat(LiveHandshake.isUpgrade("keep-alive", "websocket")).isFalse();
    assertThat(LiveHandshake.isUpgrade("Upgrade", "h2c")).isFalse();
    assertThat(LiveHandshake.isUpgrade(null, null)).isFalse();
  }

  @Test
  void sameOriginAndListedOriginsAreAllowedOthersNot() {
    List<String> allowed = List.of("https://ops.example");
    assertThat(LiveHandshake.originAllowed(null, "h:8080", allowed)).isTrue();
    assertThat(LiveHandshake.originAllowed("http://h:8080", "h:8080", allowed)).isTrue();
    assertThat(LiveHandshake.originAllowed("https://ops.example", "h:8080", allowed)).isTrue();
    assertThat(LiveHandshake.originAllowed("http://evil.example", "h:8080", allowed)).isFalse();
    assertThat(LiveHandshake.originAllowed("::not a uri", "h:8080", allowed)).isFalse();
  }

  @Test
  void replayMemoryChargesAtLeastTheEventsCharactersTwice() {
    Event small = new Event("d", 1, "e");
    String payload = "{\"blob\":\"" + "x".repeat(10_000) + "\"}";
    Event big =
        new Event("d", 1, "e", "meter", "ok", 200, Map.of("t", 1.0), Map.of("site", "p3"), payload);
    assertThat(ReplayMemory.heapBytes(small)).isGreaterThan(100);
    assertThat(ReplayMemory.heapBytes(big)).isGreaterThan(2L * payload.length());
    assertThat(ReplayMemory.identityBytes(List.of("abc", "de"))).isEqualTo(64 + 6 + 64 + 4);
  }
}
