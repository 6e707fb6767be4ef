package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ambergarden.ApiRoutes;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.EventLimits;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.localrt.Certificates;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP server over TLS with certificates from a test CA: served, refused to clients that do not
 * trust the CA, and a rotated certificate taken for new connections without a restart (on every
 * HTTP verticle instance).
 */
@Timeout(120)
class HttpTlsTest {
  @TempDir Path dir;
  private Vertx vertx;
  private PrometheusMeterRegistry registry;
  private Certificates ca;
  private Path certFile;
  private Path keyFile;
  private int port;

  @BeforeEach
  void startOverTls() throws Exception {
    ca = Certificates.authority(dir.resolve("ca"), "Amber Test CA", "changeit");
    Certificates.Issued first = ca.issue("server-1");
    certFile = dir.resolve("tls.crt");
    keyFile = dir.resolve("tls.key");
    Files.copy(first.chainPem(), certFile);
    Files.copy(first.keyPem(), keyFile);
    AmberConfig config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of(
                "ingest.mode", "direct",
                "http.host", "127.0.0.1",
                "http.port", "0",
                "http.instances", "2",
                "http.tls.cert-file", certFile.toString(),
                "http.tls.key-file", keyFile.toString(),
                "http.tls.reload-interval", "1s",
                "auth.enabled", "false"));
    vertx = Vertx.vertx();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LocalCodec.registerAll(vertx);
    EventParser parser = new EventParser(EventLimits.defaults(), Clock.systemUTC());
    LiveConnections live = new LiveConnections(10, registry);
    AmberMeters meters = new AmberMeters(registry, "t");
    Gatekeeper gate = Gatekeeper.start(vertx, config, null).await(10, TimeUnit.SECONDS);
    List<HttpVerticle> instances = new CopyOnWriteArrayList<>();
    vertx
        .deployVerticle(
            () ->
                add(
                    instances,
                    ApiRoutes.httpVerticle(
                        config,
                        parser,
                        new HealthState(config.ingest().mode()),
                        registry,
                        new Cursor(new byte[32]),
                        live,
                        meters,
                        HttpBudgets.of(config, registry),
                        gate)),
            new DeploymentOptions().setInstances(2))
        .await(30, TimeUnit.SECONDS);
    // http.port=0 with two instances: one port chosen at listen, served by both
    port = instances.get(0).actualPort();
    assertThat(port).isPositive();
    assertThat(instances).hasSize(2).allSatisfy(h -> assertThat(h.actualPort()).isEqualTo(port));
  }

  private static HttpVerticle add(List<HttpVerticle> all, HttpVerticle one) {
    all.add(one);
    return one;
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    registry.close();
  }

  private HttpClient client(String... protocols) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(ca.truststore())) {
      trust.load(in, ca.password().toCharArray());
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    SSLParameters params = new SSLParameters();
    if (protocols.length > 0) {
      params.setProtocols(protocols);
    }
    // a new client per call: a reused connection would keep the old certificate
    return HttpClient.newBuilder()
        .sslContext(ssl)
        .sslParameters(params)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  private String servedCertificate(HttpClient client) throws Exception {
    HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/health/live"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    X509Certificate peer = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
    return peer.getSubjectX500Principal().getName();
  }

  @Test
  void servesOverTlsWithTheTestCaAndHostNameVerification() throws Exception {
    assertThat(servedCertificate(client())).isEqualTo("CN=server-1");
    assertThat(servedCertificate(client("TLSv1.2"))).isEqualTo("CN=server-1");
    assertThat(servedCertificate(client("TLSv1.3"))).isEqualTo("CN=server-1");
  }

  @Test
  void aClientThatDoesNotTrustTheCaIsRefused() {
    HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    assertThatThrownBy(
            () ->
                untrusting.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/health/live"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void aRotatedCertificateIsUsedWithoutARestart() throws Exception {
    assertThat(servedCertificate(client())).isEqualTo("CN=server-1");
    Certificates.Issued second = ca.issue("server-2");
    // the way a renewed Kubernetes Secret lands: both files replaced
    Files.copy(second.chainPem(), certFile, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(second.keyPem(), keyFile, StandardCopyOption.REPLACE_EXISTING);
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> servedCertificate(client()).equals("CN=server-2"));
    // every later connection, on whichever instance accepts it, gets the new one
    for (int i = 0; i < 6; i++) {
      assertThat(servedCertificate(client())).isEqualTo("CN=server-2");
    }
  }
}
