package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class MediaConfigTest {
  private static AmberConfig load(Map<String, String> overrides) {
    return ConfigLoader.load(Map.of(), new Properties(), overrides);
  }

  @Test
  void defaultsDescribeALocalS3CompatibleStoreAndTenMebibyteImages() {
    AmberConfig.Media m = load(Map.of()).media();
    assertThat(m.enabled()).isTrue();
    assertThat(m.s3Endpoint()).isEqualTo("http://127.0.0.1:9000");
    assertThat(m.s3PathStyle()).isTrue();
    assertThat(m.maxBytes()).isEqualTo(10L << 20);
    assertThat(m.maxTags()).isEqualTo(8);
    assertThat(m.purgeAfter()).isEqualTo(Duration.ofDays(7));
    assertThat(m.shareMaxTtl()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void theSecretKeyIsRedactedEverywhereItCouldBeShown() {
    AmberConfig c =
        load(Map.of("media.s3.access-key", "AKIAEXAMPLE", "media.s3.secret-key", "s3cr3t-value"));
    assertThat(c.media().toString()).doesNotContain("s3cr3t-value");
    assertThat(c.raw().redacted().get("media.s3.secret-key")).isEqualTo("******");
  }

  @Test
  void badValuesStopStartupNamingTheKey() {
    Map<String, String> bad =
        Map.of(
            "media.max-tags", "9",
            "media.s3.bucket", "Not_A_Bucket",
            "media.s3.endpoint", "ftp://store",
            "media.public-base-url", "https://amber.example.com/",
            "media.orphan-grace", "5s",
            "media.sweep.lease-ttl", "1s",
            "media.s3.secret-key", "only-the-secret");
    bad.forEach(
        (key, value) ->
            assertThatThrownBy(() -> load(Map.of(key, value)))
                .as(key + "=" + value)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key));
    assertThatThrownBy(() -> load(Map.of("media.share.min-ttl", "2h", "media.share.max-ttl", "1h")))
        .hasMessageContaining("media.share.min-ttl");
  }

  @Test
  void anOrphanGraceShorterThanTheLongestAnUploadMayTakeStopsStartup() {
    // an upload may stream its body for its deadline and then wait 3 request timeouts for its
    // metadata; a grace below that lets the sweeper collect the blob of an upload still running
    assertThatThrownBy(
            () -> load(Map.of("media.orphan-grace", "1s", "cassandra.request-timeout", "500ms")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("media.orphan-grace");
    assertThatThrownBy(
            () ->
                load(
                    Map.of(
                        "media.orphan-grace", "10m",
                        "media.upload-deadline", "570s",
                        "cassandra.request-timeout", "15s")))
        .hasMessageContaining("media.orphan-grace")
        .hasMessageContaining("media.upload-deadline");
  }

  @Test
  void theOrphanGraceOfAnAcceptedConfigCoversTheUploadDeadlinePlusTheMetadataWait() {
    for (Map<String, String> overrides :
        java.util.List.of(
            Map.<String, String>of(),
            Map.of("media.orphan-grace", "20s", "media.upload-deadline", "5s"),
            Map.of(
                "media.orphan-grace", "10m",
                "media.upload-deadline", "9m",
                "cassandra.request-timeout", "20s"))) {
      AmberConfig c = load(overrides);
      Duration longestUpload =
          c.media()
              .uploadDeadline()
              .plus(AmberConfig.Media.metadataWait(c.cassandra().requestTimeout()));
      assertThat(longestUpload)
          .as(overrides.toString())
          .isLessThanOrEqualTo(c.media().orphanGrace());
    }
  }
}
