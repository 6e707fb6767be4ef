package io.ambergarden.chaos.net;

import java.net.InetAddress;
import java.util.List;

/**
 * Makes the connections of one process come from its own address. Cassandra 5.0 (and Kafka, and the
 * driver) never bind the source of their outbound connections, so on one machine they all come from
 * 127.0.0.1 whatever address the process listens on. Started through {@link #launchPrefix()}, the
 * process runs in group {@code gid} (its user stays root, so its files are as before), and {@link
 * Firewall#assign} rewrites the source of that group's connections to {@code address} (SNAT,
 * matched by {@code -m owner --gid-owner}). Checked on this machine: a peer then sees the
 * connection from {@code address}, and address cuts apply to it.
 */
public record SourceAddress(int gid, InetAddress address) {
  /** Groups from here on; no entry in /etc/group is needed. */
  public static final int FIRST_GID = 41000;

  public SourceAddress {
    if (gid < 1) {
      throw new IllegalArgumentException("gid 0 is root's own group: " + gid);
    }
  }

  /** Process {@code index} (1-based: node i, broker i, ...) of a kind numbered by {@code base}. */
  public static SourceAddress of(int base, int index, InetAddress address) {
    return new SourceAddress(FIRST_GID + base + index, address);
  }

  /** Put before {@code java}: setpriv changes the group and execs java in the same process. */
  public List<String> launchPrefix() {
    return List.of("setpriv", "--regid", Integer.toString(gid), "--clear-groups");
  }
}
