package io.ambergarden.cassandra;

import com.datastax.oss.driver.api.core.metadata.EndPoint;
import com.datastax.oss.driver.api.core.ssl.ProgrammaticSslEngineFactory;
import com.datastax.oss.driver.api.core.ssl.SslEngineFactory;
import io.ambergarden.config.ConfigException;
import io.ambergarden.config.SecurityConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Client TLS to Cassandra from PKCS12 stores: TLS 1.2 or 1.3 only, host names validated unless
 * turned off. A store that cannot be read stops startup with a message naming its key.
 */
final class CassandraTls {
  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  private CassandraTls() {}

  static SslEngineFactory engineFactory(SecurityConfig.CassandraSecurity s) {
    SSLContext context = context(s);
    return new ProgrammaticSslEngineFactory(context, null, s.hostnameValidation()) {
      @Override
      public SSLEngine newSslEngine(EndPoint remoteEndpoint) {
        SSLEngine engine = super.newSslEngine(remoteEndpoint);
        engine.setEnabledProtocols(PROTOCOLS);
        return engine;
      }
    };
  }

  static SSLContext context(SecurityConfig.CassandraSecurity s) {
    try {
      TrustManager[] trust = null;
      if (!s.truststorePath().isEmpty()) {
        TrustManagerFactory tmf =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(load(s.truststorePath(), s.truststorePassword(), "cassandra.ssl.truststore-path"));
        trust = tmf.getTrustManagers();
      }
      KeyManagerFactory kmf = null;
      if (!s.keystorePath().isEmpty()) {
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(
            load(s.keystorePath(), s.keystorePassword(), "cassandra.ssl.keystore-path"),
            s.keystorePassword().toCharArray());
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf == null ? null : kmf.getKeyManagers(), trust, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new ConfigException("cassandra.ssl.enabled", "cannot set up TLS: " + e.getMessage());
    }
  }

  private static KeyStore load(String path, String password, String key) {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, password.toCharArray());
      return ks;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException(
          key, "cannot read the PKCS12 store " + path + ": " + e.getMessage());
    }
  }
}
