package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyAddressTranslatorTest {
  @Test
  void eachNodeIsTranslatedToItsProxyAndAnUnknownAddressStaysAsItIs() {
    Map<InetSocketAddress, InetSocketAddress> routes = new LinkedHashMap<>();
    routes.put(new InetSocketAddress("127.0.0.1", 9042), new InetSocketAddress("127.0.1.1", 19042));
    routes.put(new InetSocketAddress("127.0.0.2", 9042), new InetSocketAddress("127.0.1.2", 19042));
    String spec = ProxyAddressTranslator.render(routes);
    assertThat(spec).isEqualTo("127.0.0.1:9042=127.0.1.1:19042,127.0.0.2:9042=127.0.1.2:19042");
    ProxyAddressTranslator t = new ProxyAddressTranslator(ProxyAddressTranslator.parse(spec));
    assertThat(t.translate(new InetSocketAddress("127.0.0.2", 9042)))
        .isEqualTo(new InetSocketAddress("127.0.1.2", 19042));
    assertThat(t.translate(new InetSocketAddress("127.0.0.3", 9042)))
        .isEqualTo(new InetSocketAddress("127.0.0.3", 9042));
  }

  @Test
  void anEmptySpecRoutesNothingAndAMalformedOneIsRefused() {
    assertThat(ProxyAddressTranslator.parse(" ")).isEmpty();
    assertThatThrownBy(() -> ProxyAddressTranslator.parse("127.0.0.1:9042"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("127.0.0.1:9042");
    assertThatThrownBy(() -> ProxyAddressTranslator.parse("127.0.0.1:x=127.0.1.1:1"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
