package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The secured local servers' configuration, without starting them. */
class SecureRuntimeTest {
  @TempDir Path tmp;

  @Test
  void theBrokerGetsASaslSslListenerWithAclsAndKeepsItsPlainOne() throws Exception {
    LocalRuntimeOptions o =
        LocalRuntimeOptions.defaults().withKafkaPort(19092).withKafkaControllerPort(19093);
    Certificates.Issued cert =
        new Certificates.Issued(
            tmp.resolve("b.pem"),
            tmp.resolve("b.key"),
            tmp.resolve("c.pem"),
            tmp.resolve("b.p12"),
            "pw");
    Properties p = new Properties();
    p.load(
        new StringReader(
            KafkaBroker.withSecureListener(
                KafkaBroker.serverProperties(o, tmp.resolve("data")), o, 19094, cert)));
    assertThat(p.getProperty("listeners"))
        .isEqualTo(
            "PLAINTEXT://127.0.0.1:19092,SASL_SSL://127.0.0.1:19094,CONTROLLER://127.0.0.1:19093");
    assertThat(p.getProperty("listener.security.protocol.map")).contains("SASL_SSL:SASL_SSL");
    assertThat(p.getProperty("inter.broker.listener.name")).isEqualTo("PLAINTEXT");
    assertThat(p.getProperty("sasl.enabled.mechanisms")).isEqualTo("SCRAM-SHA-512");
    assertThat(p.getProperty("listener.name.sasl_ssl.ssl.keystore.location"))
        .isEqualTo(tmp.resolve("b.p12").toString());
    assertThat(p.getProperty("authorizer.class.name")).endsWith("StandardAuthorizer");
    assertThat(p.getProperty("super.users")).isEqualTo("User:ANONYMOUS");
    assertThat(p.getProperty("allow.everyone.if.no.acl.found")).isEqualTo("false");
  }

  @Test
  void aSecuredNodeRequiresPasswordsAndClientTls() {
    CassandraNode.Security s =
        new CassandraNode.Security(
            new Certificates.Issued(
                tmp.resolve("n.pem"),
                tmp.resolve("n.key"),
                tmp.resolve("c.pem"),
                tmp.resolve("n.p12"),
                "pw"),
            tmp.resolve("trust.p12"),
            "pw");
    String yaml = CassandraNode.securedYaml(s);
    assertThat(yaml)
        .contains("authenticator: PasswordAuthenticator")
        .contains("authorizer: CassandraAuthorizer")
        .contains("enabled: true")
        .contains("optional: false")
        .contains("store_type: PKCS12")
        .contains("keystore: '" + tmp.resolve("n.p12") + "'");
  }

  @Test
  void theTestCaIssuesCertificatesForLoopbackNames() throws Exception {
    Certificates ca = Certificates.authority(tmp.resolve("ca"), "Test CA", "pw");
    Certificates.Issued server = ca.issue("server");
    var cf = java.security.cert.CertificateFactory.getInstance("X.509");
    java.security.cert.X509Certificate cert;
    try (var in = java.nio.file.Files.newInputStream(server.certPem())) {
      cert = (java.security.cert.X509Certificate) cf.generateCertificate(in);
    }
    assertThat(cert.getSubjectAlternativeNames())
        .extracting(l -> l.get(1).toString())
        .contains("localhost", "127.0.0.1", "127.0.0.2", "127.0.0.3");
    java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
    try (var in = java.nio.file.Files.newInputStream(ca.truststore())) {
      trust.load(in, "pw".toCharArray());
    }
    java.security.cert.X509Certificate root =
        (java.security.cert.X509Certificate) trust.getCertificate("ca");
    cert.verify(root.getPublicKey());
    assertThat(java.nio.file.Files.readString(server.keyPem()))
        .startsWith("-----BEGIN PRIVATE KEY");
  }
}
