package io.ambergarden.auth;

import io.ambergarden.config.AddressRange;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's address as far as it can be trusted: the peer's, unless the peer is one of the
 * configured proxies ({@code http.trusted-proxies}); then the nearest {@code X-Forwarded-For} hop
 * that is not a trusted proxy (hops further left were written by the client and prove nothing).
 * IPv6 clients are grouped by their /64, which one subscriber usually holds whole.
 */
public final class ClientAddress {
  /** Hops read from the right; a longer chain is cut (all of it is the client's anyway). */
  private static final int MAX_HOPS = 32;

  private final List<AddressRange> trustedProxies;

  public ClientAddress(List<AddressRange> trustedProxies) {
    this.trustedProxies = List.copyOf(trustedProxies);
  }

  /** The client of a request from {@code peer} carrying these X-Forwarded-For header values. */
  public String of(String peer, List<String> forwardedFor) {
    byte[] client = AddressRange.literalOrNull(peer);
    if (client == null) {
      return peer == null ? "unknown" : peer;
    }
    if (trusted(client) && forwardedFor != null && !forwardedFor.isEmpty()) {
      List<String> hops = new ArrayList<>();
      for (String header : forwardedFor) {
        for (String hop : header.split(",")) {
          hops.add(hop.strip());
        }
      }
      for (int i = hops.size() - 1; i >= Math.max(0, hops.size() - MAX_HOPS); i--) {
        byte[] hop = AddressRange.literalOrNull(hops.get(i));
        if (hop == null) {
          break; // garbage: the last trustworthy hop is the client
        }
        client = hop;
        if (!trusted(hop)) {
          break;
        }
      }
    }
    return text(client);
  }

  private boolean trusted(byte[] address) {
    for (AddressRange r : trustedProxies) {
      if (r.contains(address)) {
        return true;
      }
    }
    return false;
  }

  private static String text(byte[] address) {
    byte[] key = address;
    if (address.length == 16) {
      key = address.clone();
      for (int i = 8; i < 16; i++) {
        key[i] = 0;
      }
    }
    try {
      String t = InetAddress.getByAddress(key).getHostAddress();
      return address.length == 16 ? t + "/64" : t;
    } catch (UnknownHostException e) {
      throw new IllegalStateException("4 or 16 bytes are always an address", e);
    }
  }
}
