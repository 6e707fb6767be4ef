package io.ambergarden.media;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MediaRulesTest {
  static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
  static final byte[] JPEG = {(byte) 0xff, (byte) 0xd8, (byte) 0xff, (byte) 0xe0, 0, 16, 'J', 'F'};
  static final byte[] WEBP =
      "RIFF\u0000\u0000\u0000\u0000WEBPVP8 ".getBytes(StandardCharsets.ISO_8859_1);

  @Test
  void magicBytesTellTheSupportedTypesApart() {
    assertThat(ImageTypes.sniff(PNG, PNG.length)).isEqualTo(ImageTypes.PNG);
    assertThat(ImageTypes.sniff(JPEG, JPEG.length)).isEqualTo(ImageTypes.JPEG);
    assertThat(ImageTypes.sniff(WEBP, WEBP.length)).isEqualTo(ImageTypes.WEBP);
    assertThat(ImageTypes.sniff("GIF89a......".getBytes(StandardCharsets.US_ASCII), 12)).isNull();
    assertThat(ImageTypes.sniff("RIFF....WAVE".getBytes(StandardCharsets.US_ASCII), 12)).isNull();
    assertThat(ImageTypes.sniff(PNG, 4)).as("too few bytes to tell").isNull();
  }

  @Test
  void declaredTypesAreNormalisedAndOthersRefused() {
    assertThat(ImageTypes.declared("IMAGE/PNG; charset=binary")).isEqualTo(ImageTypes.PNG);
    assertThat(ImageTypes.declared("image/gif")).isNull();
    assertThat(ImageTypes.declared("image/jpg")).isNull();
    assertThat(ImageTypes.declared(null)).isNull();
  }

  @Test
  void tagsAreNormalisedDedupedAndLimited() {
    ImageTags.Parsed p = ImageTags.parse("Kamera, kamera,风景,pump-3.a_b", 8);
    assertThat(p.ok()).isTrue();
    assertThat(p.tags()).containsExactly("kamera", "风景", "pump-3.a_b");
    assertThat(ImageTags.parse(null, 8).tags()).isEmpty();
    assertThat(ImageTags.parse("", 8).tags()).isEmpty();
    assertThat(ImageTags.parse("a,b,c", 2).error()).contains("at most 2");
    for (String bad :
        List.of("a b", "a,,b", "2024-01:tag", "../x", "..", "x\u0000", "é".repeat(65))) {
      assertThat(ImageTags.parse(bad, 8).ok()).as(bad).isFalse();
    }
    // the same word composed and decomposed is one tag
    assertThat(ImageTags.normalize("e\u0301")).isEqualTo(ImageTags.normalize("\u00e9"));
  }

  @Test
  void monthsAreUtcYearMonthNumbers() {
    assertThat(Months.of(Instant.parse("2026-01-31T23:59:59.999Z").toEpochMilli()))
        .isEqualTo(202601);
    assertThat(Months.of(Instant.parse("2026-02-01T00:00:00Z").toEpochMilli())).isEqualTo(202602);
    assertThat(Months.of(0)).isEqualTo(197001);
  }

  @Test
  void objectKeysSortByUploadTimeWithinAShardAndParseBack() {
    UUID id = UUID.randomUUID();
    long t = Instant.parse("2026-12-03T10:00:00Z").toEpochMilli();
    String key = ObjectKeys.key(id, t);
    assertThat(key).startsWith(ObjectKeys.prefix(ObjectKeys.shard(id)));
    assertThat(ObjectKeys.parse(key)).contains(new ObjectKeys.Parsed(ObjectKeys.shard(id), t, id));
    int shard = ObjectKeys.shard(id);
    assertThat(key.compareTo(ObjectKeys.startAfter(shard, t))).isPositive();
    assertThat(key.compareTo(ObjectKeys.startAfter(shard, t + 1))).isNegative();
    assertThat(ObjectKeys.parse("img/03/junk")).isEmpty();
    assertThat(ObjectKeys.parse("other/" + key)).isEmpty();
    int wrongShard = (shard + 1) % ObjectKeys.SHARDS;
    assertThat(
            ObjectKeys.parse(key.replace(ObjectKeys.prefix(shard), ObjectKeys.prefix(wrongShard))))
        .isEmpty();
  }

  @Test
  void shareTokensAreRandomAndOnlyTheirHashIsKept() {
    String a = ShareTokens.newToken();
    String b = ShareTokens.newToken();
    assertThat(a).hasSize(24).isNotEqualTo(b);
    assertThat(ShareTokens.wellFormed(a)).isTrue();
    assertThat(ShareTokens.wellFormed("../../etc/passwd")).isFalse();
    assertThat(ShareTokens.hash(a)).hasSize(64).isNotEqualTo(ShareTokens.hash(b)).doesNotContain(a);
  }

  @Test
  void uploadHeadersAreJudgedBeforeTheBody() {
    long max = 10 << 20;
    assertThat(UploadRules.admit("image/png", "1234", null, max).ok()).isTrue();
    assertThat(UploadRules.admit("image/png", "1234", null, max).length()).isEqualTo(1234);
    assertThat(UploadRules.admit("text/plain", "12", null, max).status()).isEqualTo(415);
    assertThat(UploadRules.admit("image/png", null, "chunked", max).status()).isEqualTo(411);
    assertThat(UploadRules.admit("image/png", "12", "chunked", max).status()).isEqualTo(411);
    assertThat(UploadRules.admit("image/png", "x", null, max).status()).isEqualTo(400);
    assertThat(UploadRules.admit("image/png", "0", null, max).status()).isEqualTo(400);
    assertThat(UploadRules.admit("image/png", Long.toString(max + 1), null, max).status())
        .isEqualTo(413);
    assertThat(UploadRules.admit("image/png", Long.toString(max), null, max).ok()).isTrue();
  }

  @Test
  void announcedDigestIsReadFromContentDigest() throws Exception {
    byte[] sha = MessageDigest.getInstance("SHA-256").digest("x".getBytes(StandardCharsets.UTF_8));
    String header = "sha-512=:AAAA:, sha-256=:" + Base64.getEncoder().encodeToString(sha) + ":";
    assertThat(UploadRules.announcedSha256(header)).isEqualTo(HexFormat.of().formatHex(sha));
    assertThat(UploadRules.announcedSha256(null)).isNull();
    assertThat(UploadRules.announcedSha256("sha-512=:AAAA:")).isNull();
    assertThat(UploadRules.announcedSha256("sha-256=:AAAA:")).isEmpty();
  }

  @Test
  void purgeBucketsAreReadOnlyAfterTheyEndAndTheSafetyPassed() {
    SweepPlan plan = new SweepPlan(Duration.ofMinutes(1), Duration.ofSeconds(10));
    long due = Instant.parse("2026-12-03T10:00:30Z").toEpochMilli();
    long bucket = plan.purgeBucket(due);
    assertThat(bucket).isEqualTo(Instant.parse("2026-12-03T10:00:00Z").toEpochMilli());
    assertThat(plan.purgeBucketDue(bucket, bucket + 60_000 + 9_999)).isFalse();
    assertThat(plan.purgeBucketDue(bucket, bucket + 70_000)).isTrue();
    assertThat(plan.markTtlSeconds(due, due - 1000)).isEqualTo(1 + 30 * 86_400);
    long now = bucket + 70_000;
    assertThat(plan.lastDueBucket(now)).isEqualTo(bucket);
    assertThat(plan.purgeBucketDue(plan.lastDueBucket(now), now)).isTrue();
    assertThat(plan.purgeBucketDue(plan.lastDueBucket(now) + 60_000, now)).isFalse();
    assertThat(SweepPlan.purgeable(1000, Duration.ofSeconds(1), 1999)).isFalse();
    assertThat(SweepPlan.purgeable(1000, Duration.ofSeconds(1), 2000)).isTrue();
    assertThat(SweepPlan.orphanHorizon(10_000, Duration.ofSeconds(3))).isEqualTo(7_000);
  }
}
