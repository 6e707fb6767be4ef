package io.ambergarden.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.regex.Pattern;

/** Reads and validates the {@code media.*} keys (device images); a bad value names its key. */
final class MediaConfigReader {
  /** S3 bucket naming rules: 3-63 of lower-case letters, digits, dots and hyphens. */
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  private static final Pattern REGION = Pattern.compile("[a-z0-9-]{1,32}");

  /**
   * The upload's metadata is one logged batch: image_by_id, images_by_device and one images_by_tag
   * row per tag. Such a batch stays within 10 partitions (Cassandra warns above), so at most 8
   * tags.
   */
  static final int MAX_TAGS_LIMIT = 8;

  private MediaConfigReader() {}

  static AmberConfig.Media read(RawConfig c) {
    AmberConfig.Media m =
        new AmberConfig.Media(
            c.bool("media.enabled"),
            url(c, "media.s3.endpoint", false),
            c.matching("media.s3.region", REGION, "an AWS-style region name such as us-east-1"),
            c.matching("media.s3.bucket", BUCKET, "an S3 bucket name (3-63 of a-z 0-9 . -)"),
            c.string("media.s3.access-key"),
            c.string("media.s3.secret-key"),
            c.bool("media.s3.path-style"),
            c.bool("media.s3.create-bucket"),
            c.duration("media.s3.timeout", Duration.ofMillis(100), Duration.ofMinutes(10)),
            c.longIn("media.max-bytes", 16, 1L << 30),
            c.intIn("media.max-tags", 0, MAX_TAGS_LIMIT),
            c.intIn("media.max-in-flight-uploads", 1, 100_000),
            c.duration("media.upload-deadline", Duration.ofSeconds(1), Duration.ofDays(1)),
            c.duration("media.share.min-ttl", Duration.ofSeconds(1), Duration.ofDays(365)),
            c.duration("media.share.max-ttl", Duration.ofSeconds(1), Duration.ofDays(365)),
            url(c, "media.public-base-url", true),
            c.duration("media.purge-after", Duration.ZERO, Duration.ofDays(3650)),
            c.duration("media.orphan-grace", Duration.ofSeconds(1), Duration.ofDays(30)),
            c.bool("media.sweep.enabled"),
            c.duration("media.sweep.interval", Duration.ofMillis(100), Duration.ofHours(1)),
            c.duration("media.sweep.lease-ttl", Duration.ofSeconds(1), Duration.ofHours(2)),
            c.duration("media.sweep.bucket", Duration.ofSeconds(1), Duration.ofDays(1)));
    if (m.s3AccessKey().isEmpty() != m.s3SecretKey().isEmpty()) {
      throw new ConfigException(
          "media.s3.secret-key",
          "media.s3.access-key and media.s3.secret-key are set together (both empty: the AWS"
              + " default credential chain)");
    }
    if (m.shareMinTtl().compareTo(m.shareMaxTtl()) > 0) {
      throw new ConfigException("media.share.min-ttl", "must not exceed media.share.max-ttl");
    }
    if (m.sweepLeaseTtl().compareTo(m.sweepInterval().multipliedBy(2)) < 0) {
      throw new ConfigException(
          "media.sweep.lease-ttl", "must be at least twice media.sweep.interval");
    }
    // the sweeper judges a blob by the time stamped in its key when the upload began: its metadata
    // must have landed by then, or a live upload's blob is collected
    Duration longestUpload =
        m.uploadDeadline()
            .plus(
                AmberConfig.Media.metadataWait(
                    c.duration("cassandra.request-timeout", Duration.ZERO, Duration.ofDays(1))));
    if (m.orphanGrace().compareTo(longestUpload) < 0) {
      throw new ConfigException(
          "media.orphan-grace",
          "must be at least media.upload-deadline plus "
              + AmberConfig.Media.METADATA_WAIT_TIMEOUTS
              + " times cassandra.request-timeout ("
              + longestUpload
              + ", the longest an upload may take until its metadata is written), or a live"
              + " upload's blob could be collected as an orphan");
    }
    return m;
  }

  /** An http(s) URL without a trailing slash; empty allowed when {@code optional}. */
  private static String url(RawConfig c, String key, boolean optional) {
    String v = c.string(key);
    if (v.isEmpty() && optional) {
      return v;
    }
    try {
      URI u = new URI(v);
      String scheme = u.getScheme();
      if (("http".equals(scheme) || "https".equals(scheme))
          && u.getHost() != null
          && u.getQuery() == null
          && !v.endsWith("/")) {
        return v;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw new ConfigException(
        key, "must be an http(s) URL such as http://127.0.0.1:9000, without a trailing slash");
  }
}
