package io.ambergarden.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * An IP address or a CIDR range (10.0.0.0/8, fd00::/8) from the config. Only literal addresses are
 * accepted, so parsing never asks DNS.
 */
public record AddressRange(byte[] network, int prefixBits) {
  private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.]+");

  public AddressRange {
    network = network.clone();
  }

  /** The range written as {@code text}; fails with IllegalArgumentException. */
  public static AddressRange parse(String text) {
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    byte[] bytes = literal(address);
    int bits = bytes.length * 8;
    if (slash >= 0) {
      try {
        bits = Integer.parseInt(text.substring(slash + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a prefix length: " + text);
      }
      if (bits < 0 || bits > bytes.length * 8) {
        throw new IllegalArgumentException("prefix length out of range: " + text);
      }
    }
    return new AddressRange(bytes, bits);
  }

  /**
   * The bytes of a literal IP address, or null when {@code text} is not one (host names are not).
   */
  public static byte[] literalOrNull(String text) {
    try {
      return literal(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static byte[] literal(String text) {
    String t = text.strip();
    if (t.startsWith("[") && t.endsWith("]")) {
      t = t.substring(1, t.length() - 1);
    }
    if (t.isEmpty() || !LITERAL.matcher(t).matches() || (t.indexOf(':') < 0 && !ipv4(t))) {
      throw new IllegalArgumentException("not an IP address: " + text);
    }
    try {
      return InetAddress.getByName(t).getAddress(); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + text);
    }
  }

  private static boolean ipv4(String t) {
    String[] parts = t.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }

  /** True when {@code address} (the bytes of an IPv4 or IPv6 address) lies in this range. */
  public boolean contains(byte[] address) {
    if (address == null || address.length != network.length) {
      return false;
    }
    int full = prefixBits / 8;
    for (int i = 0; i < full; i++) {
      if (address[i] != network[i]) {
        return false;
      }
    }
    int rest = prefixBits % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (address[full] & mask) == (network[full] & mask);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AddressRange r
        && prefixBits == r.prefixBits
        && Arrays.equals(network, r.network);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(network) + prefixBits;
  }

  @Override
  public String toString() {
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixBits;
    } catch (UnknownHostException e) {
      return Arrays.toString(network) + "/" + prefixBits;
    }
  }
}
