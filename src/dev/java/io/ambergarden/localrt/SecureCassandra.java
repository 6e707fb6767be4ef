package io.ambergarden.localrt;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A secured Cassandra node for the test of the secured path: PasswordAuthenticator, roles and
 * permissions, client TLS only, a certificate from its own throw-away CA. It starts fresh in {@code
 * dir} on free ports, beside the shared plain node, and is stopped by its user.
 */
public final class SecureCassandra {
  private SecureCassandra() {}

  /** The node, not started; {@code like} gives the version and timeouts. */
  public static CassandraNode create(LocalRuntimeOptions like, Path dir) {
    byte[] random = new byte[18];
    new SecureRandom().nextBytes(random);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    LocalRuntimeOptions o =
        like.withBaseDir(dir)
            .withCqlPort(Ports.free())
            .withStoragePort(Ports.free())
            .withJmxPort(Ports.free())
            .withCassandraHeap("512M");
    // a fresh node each time: the default superuser is made on first boot only
    LocalRuntime.deleteTree(o.cassandraDir());
    Certificates ca =
        Certificates.authority(dir.resolve("tls"), "Amber local Cassandra CA", password);
    Certificates.Issued node = ca.issue("cassandra");
    return new CassandraNode(o, new CassandraNode.Security(node, ca.truststore(), password));
  }
}
