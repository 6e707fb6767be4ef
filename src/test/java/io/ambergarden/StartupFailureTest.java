package io.ambergarden;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.auth.AuthenticationException;
import com.datastax.oss.driver.internal.core.metadata.DefaultEndPoint;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class StartupFailureTest {
  @Test
  void refusedCassandraCredentialsAreOneLineNamingTheKeys() {
    StartupFailure f =
        StartupFailure.of(
            new CompletionException(
                new AuthenticationException(
                    new DefaultEndPoint(new InetSocketAddress("127.0.0.1", 9042)),
                    "Provided username amber and/or password are incorrect")));
    assertThat(f.known()).isTrue();
    assertThat(f.getMessage())
        .startsWith("Cassandra refused the credentials (cassandra.username")
        .contains("incorrect")
        .doesNotContain("\n");
  }

  @Test
  void anUntrustedCertificateNamesTheStoreAndTheTruststoreKey() {
    Throwable pkix =
        new SSLHandshakeException("PKIX path building failed")
            .initCause(new java.security.cert.CertPathValidatorException("no trust anchor"));
    StartupFailure cassandra = StartupFailure.of(new IllegalStateException("connect", pkix));
    assertThat(cassandra.getMessage())
        .startsWith("Cassandra TLS handshake failed")
        .contains("cassandra.ssl.truststore-path")
        .contains("no trust anchor");
    StartupFailure kafka =
        StartupFailure.of(new SslAuthenticationException("SSL handshake failed", pkix));
    assertThat(kafka.getMessage())
        .startsWith("Kafka TLS handshake failed")
        .contains("kafka.ssl.truststore-location");
  }

  @Test
  void kafkaSaslAndAclFailuresSayWhatToCheck() {
    assertThat(
            StartupFailure.of(new SaslAuthenticationException("Authentication failed during"))
                .getMessage())
        .startsWith("Kafka refused the SASL credentials (kafka.sasl.username");
    assertThat(
            StartupFailure.of(new TopicAuthorizationException("Not authorized to access topics"))
                .getMessage())
        .startsWith("Kafka denied the operation")
        .contains("ACLs");
  }

  @Test
  void anythingElseKeepsItsOwnWordsAndIsNotKnown() {
    StartupFailure f = StartupFailure.of(new IllegalStateException("boom"));
    assertThat(f.known()).isFalse();
    assertThat(f.getMessage()).contains("boom");
  }
}
