package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure parts of the local object store: its options and the configuration it is given. */
class S3ProxySupportTest {
  @TempDir Path tmp;

  @Test
  void systemPropertyBeatsEnvironmentBeatsDefaults() {
    Map<String, String> props = Map.of("amber.localrt.s3.port", "25100");
    Map<String, String> env =
        Map.of("AMBER_LOCALRT_S3_PORT", "9999", "AMBER_LOCALRT_S3_HEAP", "512M");
    S3ProxyOptions o =
        new S3ProxyOptions(S3ProxyOptions.DEV_PORT, "256M", "4.1.0")
            .overriddenBy(props::get, env::get);
    assertThat(o).isEqualTo(new S3ProxyOptions(25100, "512M", "4.1.0"));
    assertThat(S3ProxyOptions.forTests().port())
        .isEqualTo(
            System.getProperty("amber.localrt.s3.port") == null
                ? S3ProxyOptions.TEST_PORT
                : Integer.parseInt(System.getProperty("amber.localrt.s3.port")));
    assertThatThrownBy(
            () ->
                new S3ProxyOptions(9000, "256M", "4.1.0")
                    .overriddenBy(Map.of("amber.localrt.s3.port", "99999")::get, k -> null))
        .hasMessageContaining("amber.localrt.s3.port");
  }

  @Test
  void itChecksSignaturesWithCredentialsGeneratedOncePerDataDirectory() throws IOException {
    LocalRuntimeOptions base = LocalRuntimeOptions.defaults().withBaseDir(tmp);
    S3ProxyServer first = new S3ProxyServer(base, new S3ProxyOptions(25100, "256M", "4.1.0"));
    first.prepare("");
    Properties conf = new Properties();
    conf.load(new StringReader(Files.readString(tmp.resolve("s3proxy/conf/s3proxy.conf"))));
    assertThat(conf.getProperty("s3proxy.authorization")).isEqualTo("aws-v2-or-v4");
    assertThat(conf.getProperty("s3proxy.endpoint")).isEqualTo("http://127.0.0.1:25100");
    assertThat(conf.getProperty("jclouds.provider")).isEqualTo("filesystem-nio2");
    assertThat(conf.getProperty("jclouds.filesystem.basedir"))
        .isEqualTo(tmp.resolve("s3proxy/data").toString());
    assertThat(conf.getProperty("s3proxy.identity"))
        .isEqualTo(first.accessKey())
        .startsWith("amber-");
    assertThat(first.secretKey()).hasSize(48);
    // a second start on the same data keeps the credentials the stored blobs were written with
    S3ProxyServer again = new S3ProxyServer(base, new S3ProxyOptions(25101, "256M", "4.1.0"));
    again.prepare("");
    assertThat(again.secretKey()).isEqualTo(first.secretKey());
    assertThat(again.endpoint()).isEqualTo("http://127.0.0.1:25101");
    // another data directory gets its own
    S3ProxyServer other =
        new S3ProxyServer(
            LocalRuntimeOptions.defaults().withBaseDir(tmp.resolve("other")),
            new S3ProxyOptions(25100, "256M", "4.1.0"));
    other.prepare("");
    assertThat(other.secretKey()).isNotEqualTo(first.secretKey());
  }
}
