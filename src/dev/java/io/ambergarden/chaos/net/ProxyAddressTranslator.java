package io.ambergarden.chaos.net;

import com.datastax.oss.driver.api.core.addresstranslation.AddressTranslator;
import com.datastax.oss.driver.api.core.config.DriverOption;
import com.datastax.oss.driver.api.core.context.DriverContext;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Routes a service instance's driver to each Cassandra node through that node's {@link LinkProxy}.
 * The driver learns the nodes' addresses from system.peers and translates them here. Set on the
 * instance's JVM (system properties override the service's programmatic driver config; checked):
 *
 * <pre>
 * -Ddatastax-java-driver.advanced.address-translator.class=io.ambergarden.chaos.net.ProxyAddressTranslator
 * -Ddatastax-java-driver.advanced.address-translator.routes=127.0.0.1:9042=127.0.1.1:9042,...
 * </pre>
 *
 * and give the instance the proxies as contact points (contact points are not translated). An
 * address without a route is used as it is.
 */
public final class ProxyAddressTranslator implements AddressTranslator {
  public static final DriverOption ROUTES = () -> "advanced.address-translator.routes";

  private final Map<InetSocketAddress, InetSocketAddress> routes;

  public ProxyAddressTranslator(DriverContext context) {
    this(parse(context.getConfig().getDefaultProfile().getString(ROUTES, "")));
  }

  ProxyAddressTranslator(Map<InetSocketAddress, InetSocketAddress> routes) {
    this.routes = Map.copyOf(routes);
  }

  @Override
  public InetSocketAddress translate(InetSocketAddress address) {
    return routes.getOrDefault(address, address);
  }

  @Override
  public void close() {}

  /** The system property value for these routes. */
  public static String render(Map<InetSocketAddress, InetSocketAddress> routes) {
    StringBuilder sb = new StringBuilder();
    routes.forEach(
        (from, to) ->
            sb.append(sb.length() == 0 ? "" : ",")
                .append(hostPort(from))
                .append('=')
                .append(hostPort(to)));
    return sb.toString();
  }

  /** "a:p=b:q,c:r=d:s" to a map; a malformed entry is an exception naming it. */
  static Map<InetSocketAddress, InetSocketAddress> parse(String spec) {
    Map<InetSocketAddress, InetSocketAddress> routes = new LinkedHashMap<>();
    for (String entry : spec.split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] sides = entry.strip().split("=");
      if (sides.length != 2) {
        throw new IllegalArgumentException("not a route 'host:port=host:port': '" + entry + "'");
      }
      routes.put(address(sides[0]), address(sides[1]));
    }
    return routes;
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not host:port: '" + hostPort + "'");
    }
    try {
      // resolved: the driver hands in resolved addresses, and equality needs the same form
      return new InetSocketAddress(
          hostPort.substring(0, colon).strip(), Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not host:port: '" + hostPort + "'", e);
    }
  }

  private static String hostPort(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }
}
