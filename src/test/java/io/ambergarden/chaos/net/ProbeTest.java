package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Loopback sockets on ephemeral ports; the timed-out case needs a DROP rule (NetFaultsCheck). */
class ProbeTest {
  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  @Test
  void aListeningPortConnectsAndASilentOneAnswersNothing() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 50, LOOPBACK)) {
      InetSocketAddress target = new InetSocketAddress(LOOPBACK, server.getLocalPort());
      assertThat(Probe.connect(LOOPBACK, target, Duration.ofSeconds(2)))
          .isEqualTo(Probe.Outcome.CONNECTED);
      assertThat(Probe.exchange(LOOPBACK, target, Probe.CQL_OPTIONS, Duration.ofMillis(200)))
          .isEqualTo(Probe.Outcome.SILENT);
    }
  }

  @Test
  void aClosedPortIsRefused() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 50, LOOPBACK)) {
      port = s.getLocalPort();
    }
    assertThat(
            Probe.connect(LOOPBACK, new InetSocketAddress(LOOPBACK, port), Duration.ofSeconds(2)))
        .isEqualTo(Probe.Outcome.REFUSED);
  }

  @Test
  void onlyConnectedAndAnsweredCountAsReached() {
    assertThat(Probe.Outcome.values())
        .filteredOn(Probe.Outcome::reached)
        .containsExactly(Probe.Outcome.CONNECTED, Probe.Outcome.ANSWERED);
  }

  @Test
  void theKafkaRequestIsAnApiVersionsRequestOfTheLengthItAnnounces() {
    byte[] r = Probe.KAFKA_API_VERSIONS;
    assertThat(r.length - 4).isEqualTo(r[3]);
    assertThat(r[5]).as("api key 18: ApiVersions").isEqualTo((byte) 18);
  }
}
