package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.config.AddressRange;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientAddressTest {
  private final ClientAddress behindProxy =
      new ClientAddress(List.of(AddressRange.parse("10.0.0.0/8"), AddressRange.parse("fd00::/8")));

  @Test
  void forwardedForIsIgnoredFromAnUntrustedPeer() {
    assertThat(behindProxy.of("203.0.113.7", List.of("1.2.3.4"))).isEqualTo("203.0.113.7");
    assertThat(new ClientAddress(List.of()).of("10.1.1.1", List.of("1.2.3.4")))
        .isEqualTo("10.1.1.1");
  }

  @Test
  void theNearestUntrustedHopIsTheClient() {
    assertThat(behindProxy.of("10.1.1.1", List.of("6.6.6.6, 198.51.100.4, 10.2.2.2")))
        .isEqualTo("198.51.100.4");
    assertThat(behindProxy.of("10.1.1.1", List.of("6.6.6.6", "198.51.100.4")))
        .isEqualTo("198.51.100.4");
  }

  @Test
  void garbageInTheChainStopsAtTheLastTrustedHop() {
    assertThat(behindProxy.of("10.1.1.1", List.of("evil.example, 10.2.2.2"))).isEqualTo("10.2.2.2");
    assertThat(behindProxy.of("10.1.1.1", List.of())).isEqualTo("10.1.1.1");
  }

  @Test
  void ipv6ClientsAreGroupedByTheirSlash64() {
    assertThat(behindProxy.of("2001:db8:1:2:aaaa::1", null))
        .isEqualTo(behindProxy.of("2001:db8:1:2:bbbb::9", null))
        .isNotEqualTo(behindProxy.of("2001:db8:1:3::1", null));
  }

  @Test
  void rangesParseOnlyLiteralAddresses() {
    assertThat(
            AddressRange.parse("192.168.0.0/16")
                .contains(new byte[] {(byte) 192, (byte) 168, 9, 9}))
        .isTrue();
    assertThat(
            AddressRange.parse("192.168.0.1").contains(new byte[] {(byte) 192, (byte) 168, 0, 2}))
        .isFalse();
    assertThat(AddressRange.parse("10.0.0.0/9").contains(new byte[] {10, (byte) 200, 0, 1}))
        .isFalse();
    assertThatThrownBy(() -> AddressRange.parse("ingress.local"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/33"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AddressRange.parse("300.1.1.1"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void failuresRefillAndTheTrackedAddressesAreBounded() {
    AtomicLong nanos = new AtomicLong();
    AddressFailures f = new AddressFailures(60, 100, nanos::get);
    for (int i = 0; i < 60; i++) {
      assertThat(f.waitNanos("a")).isZero();
      f.failed("a");
    }
    assertThat(f.waitNanos("a")).isPositive().isLessThanOrEqualTo(1_000_000_000L);
    nanos.addAndGet(1_000_000_000L);
    assertThat(f.waitNanos("a")).isZero();
    for (int i = 0; i < 10_000; i++) {
      f.failed("x" + i);
    }
    assertThat(f.tracked()).isLessThanOrEqualTo(100);
  }
}
