package io.ambergarden;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.auth.AuthenticationException;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import io.ambergarden.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * Why startup failed, in one line naming the store and the cause: refused credentials, an untrusted
 * certificate, a missing permission. Operators read this line first, so the usual causes get plain
 * words and the keys to check.
 */
final class StartupFailure extends RuntimeException {
  private final boolean known;

  private StartupFailure(String line, Throwable cause, boolean known) {
    super(line, cause, false, false);
    this.known = known;
  }

  /** True when the line says all there is (no stack trace needed). */
  boolean known() {
    return known;
  }

  static StartupFailure of(Throwable err) {
    if (err instanceof StartupFailure f) {
      return f;
    }
    // Kafka first: its TLS failure wraps the same SSLException a Cassandra one would
    for (Throwable t : chain(err)) {
      if (t instanceof SaslAuthenticationException) {
        return known(
            "Kafka refused the SASL credentials (kafka.sasl.username, kafka.sasl.password): "
                + t.getMessage(),
            err);
      }
      if (t instanceof SslAuthenticationException) {
        return known(
            "Kafka TLS handshake failed ("
                + tlsHint("kafka.ssl.truststore-location")
                + "): "
                + rootMessage(t),
            err);
      }
      if (t instanceof AuthorizationException) {
        return known(
            "Kafka denied the operation to kafka.sasl.username (check its ACLs): " + t.getMessage(),
            err);
      }
    }
    for (Throwable t : chain(err)) {
      if (t instanceof AllNodesFailedException all) {
        for (List<Throwable> errors : all.getAllErrors().values()) {
          for (Throwable e : errors) {
            StartupFailure f = cassandra(e, err);
            if (f != null) {
              return f;
            }
          }
        }
      }
      StartupFailure f = cassandra(t, err);
      if (f != null) {
        return f;
      }
      if (t instanceof ConfigException) {
        return known("Configuration: " + t.getMessage(), err);
      }
    }
    return new StartupFailure(err.toString(), err, false);
  }

  private static StartupFailure cassandra(Throwable t, Throwable err) {
    for (Throwable c : chain(t)) {
      if (c instanceof AuthenticationException) {
        return known(
            "Cassandra refused the credentials (cassandra.username, cassandra.password, or the"
                + " cassandra.schema.* role): "
                + c.getMessage(),
            err);
      }
      if (c instanceof UnauthorizedException) {
        return known(
            "Cassandra denied a statement to the role (check its GRANTs): " + c.getMessage(), err);
      }
      if (c instanceof SSLException) {
        return known(
            "Cassandra TLS handshake failed ("
                + tlsHint("cassandra.ssl.truststore-path")
                + "): "
                + rootMessage(c),
            err);
      }
    }
    return null;
  }

  private static String tlsHint(String truststoreKey) {
    return "is the server's certificate signed by a CA in "
        + truststoreKey
        + ", and does it name the host?";
  }

  private static StartupFailure known(String line, Throwable err) {
    return new StartupFailure(line, err, true);
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }

  private static List<Throwable> chain(Throwable t) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable c = t; c != null && out.size() < 20; c = c.getCause()) {
      out.add(c);
      for (Throwable s : c.getSuppressed()) {
        out.add(s);
      }
    }
    return out;
  }
}
