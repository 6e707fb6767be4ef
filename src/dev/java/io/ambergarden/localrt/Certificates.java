package io.ambergarden.localrt;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for local TLS (the secured servers, the HTTPS tests), made
 * with openssl: EC P-256 keys, 30-day certificates whose SANs name localhost and 127.0.0.1-3, so
 * host name verification stays on. Stores are PKCS12 with one password; keys also as PEM (PKCS#8),
 * which Vert.x and Kafka read.
 */
public final class Certificates {
  private final Path dir;
  private final String password;

  /** What was issued to one server: PEM files and a PKCS12 keystore of the same key. */
  public record Issued(Path certPem, Path keyPem, Path chainPem, Path keystore, String password) {}

  private Certificates(Path dir, String password) {
    this.dir = dir;
    this.password = password;
  }

  /** A new CA in {@code dir} (its key never leaves it), with a PKCS12 truststore of it. */
  public static Certificates authority(Path dir, String name, String password) {
    try {
      Files.createDirectories(dir);
      Certificates ca = new Certificates(dir, password);
      ca.openssl(
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-keyout",
          "ca.key",
          "-out",
          "ca.pem",
          "-days",
          "30",
          "-subj",
          "/CN=" + name,
          "-addext",
          "basicConstraints=critical,CA:TRUE",
          "-addext",
          "keyUsage=critical,keyCertSign,cRLSign");
      ca.truststore(dir.resolve("truststore.p12"));
      return ca;
    } catch (IOException e) {
      throw new LocalRuntimeException("cannot create a test CA in " + dir + ": " + e, e);
    }
  }

  public Path caPem() {
    return dir.resolve("ca.pem");
  }

  /** PKCS12 holding the CA certificate as a trusted entry. */
  public Path truststore() {
    return dir.resolve("truststore.p12");
  }

  public String password() {
    return password;
  }

  /** A server (and client) certificate for localhost and 127.0.0.1-3, signed by this CA. */
  public Issued issue(String name) {
    return issue(name, List.of("DNS:localhost", "IP:127.0.0.1", "IP:127.0.0.2", "IP:127.0.0.3"));
  }

  public Issued issue(String name, List<String> subjectAltNames) {
    try {
      Path ext = dir.resolve(name + ".ext");
      Files.writeString(
          ext,
          "subjectAltName="
              + String.join(",", subjectAltNames)
              + "\n"
              + "keyUsage=critical,digitalSignature,keyEncipherment\n"
              + "extendedKeyUsage=serverAuth,clientAuth\n");
      openssl(
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-keyout",
          name + ".key",
          "-out",
          name + ".csr",
          "-subj",
          "/CN=" + name);
      openssl(
          "x509",
          "-req",
          "-in",
          name + ".csr",
          "-CA",
          "ca.pem",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-out",
          name + ".pem",
          "-days",
          "30",
          "-extfile",
          name + ".ext");
      Path chain = dir.resolve(name + "-chain.pem");
      Files.writeString(
          chain, Files.readString(dir.resolve(name + ".pem")) + Files.readString(caPem()));
      openssl(
          "pkcs12",
          "-export",
          "-in",
          name + ".pem",
          "-inkey",
          name + ".key",
          "-certfile",
          "ca.pem",
          "-name",
          name,
          "-out",
          name + ".p12",
          "-passout",
          "pass:" + password);
      return new Issued(
          dir.resolve(name + ".pem"),
          dir.resolve(name + ".key"),
          chain,
          dir.resolve(name + ".p12"),
          password);
    } catch (IOException e) {
      throw new LocalRuntimeException("cannot issue a test certificate " + name + ": " + e, e);
    }
  }

  private void truststore(Path out) throws IOException {
    try (InputStream in = Files.newInputStream(caPem());
        OutputStream os = Files.newOutputStream(out)) {
      X509Certificate ca =
          (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setCertificateEntry("ca", ca);
      ks.store(os, password.toCharArray());
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  private void openssl(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    try {
      byte[] output = p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(
            "openssl " + args[0] + " failed: " + new String(output, StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } finally {
      p.destroyForcibly();
    }
  }
}
