package io.ambergarden.web;

import io.ambergarden.config.SecurityConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.util.Arrays;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS of the HTTP server from PEM files (TLS 1.2 and 1.3 only), and their reload: the files are
 * read every http.tls.reload-interval, and when their bytes changed (a renewed certificate, a
 * rotated Kubernetes Secret) the server takes them for new connections, without a restart.
 */
final class HttpTls {
  static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  private static final Logger LOG = LoggerFactory.getLogger(HttpTls.class);

  private HttpTls() {}

  static void apply(HttpServerOptions options, SecurityConfig.HttpTls tls) {
    if (tls.enabled()) {
      options
          .setSsl(true)
          .setKeyCertOptions(keyCert(tls))
          .setEnabledSecureTransportProtocols(PROTOCOLS);
    }
  }

  /** Starts watching the files; returns the timer id, or -1 without TLS. */
  static long watch(Vertx vertx, HttpServer server, SecurityConfig.HttpTls tls) {
    if (!tls.enabled()) {
      return -1;
    }
    byte[][] last = {null};
    read(vertx, tls).onSuccess(bytes -> last[0] = bytes);
    return vertx.setPeriodic(
        tls.reloadInterval().toMillis(),
        id ->
            read(vertx, tls)
                .onSuccess(
                    bytes -> {
                      if (last[0] != null && Arrays.equals(bytes, last[0])) {
                        return;
                      }
                      last[0] = bytes;
                      ServerSSLOptions ssl =
                          new ServerSSLOptions()
                              .setKeyCertOptions(keyCert(tls))
                              .setEnabledSecureTransportProtocols(PROTOCOLS);
                      server
                          .updateSSLOptions(ssl, true)
                          .onSuccess(
                              v -> LOG.info("TLS certificate reloaded from {}", tls.certFile()))
                          .onFailure(
                              err ->
                                  LOG.warn(
                                      "TLS files changed but cannot be used; keeping the old"
                                          + " certificate: {}",
                                      err.toString()));
                    })
                .onFailure(err -> LOG.warn("cannot read the TLS files: {}", err.toString())));
  }

  private static PemKeyCertOptions keyCert(SecurityConfig.HttpTls tls) {
    return new PemKeyCertOptions().setCertPath(tls.certFile()).setKeyPath(tls.keyFile());
  }

  /** Both files' bytes, to notice a change without trusting modification times. */
  private static Future<byte[]> read(Vertx vertx, SecurityConfig.HttpTls tls) {
    return vertx
        .fileSystem()
        .readFile(tls.certFile())
        .compose(
            cert ->
                vertx
                    .fileSystem()
                    .readFile(tls.keyFile())
                    .map(key -> Buffer.buffer().appendBuffer(cert).appendBuffer(key).getBytes()));
  }
}
