package io.ambergarden.media;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a blob lives in the bucket: {@code img/<shard>/<upload millis, 13 digits>-<image id>}. The
 * shard spreads keys over {@link #SHARDS} prefixes (the sweeper's units of work, leased like rollup
 * shards); the zero-padded upload time makes keys of one shard list in upload order, so the orphan
 * sweeper lists only the window it has not checked yet instead of the whole bucket.
 */
public final class ObjectKeys {
  /** Fixed for the life of a bucket: the shard is part of every key. */
  public static final int SHARDS = 16;

  private static final Pattern KEY =
      Pattern.compile(
          "img/(\\d{2})/(\\d{13})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");

  public record Parsed(int shard, long uploadedAt, UUID imageId) {}

  private ObjectKeys() {}

  public static int shard(UUID imageId) {
    return Math.floorMod(imageId.hashCode(), SHARDS);
  }

  public static String key(UUID imageId, long uploadedAt) {
    return prefix(shard(imageId)) + String.format("%013d-%s", uploadedAt, imageId);
  }

  public static String prefix(int shard) {
    return String.format("img/%02d/", shard);
  }

  /**
   * The S3 StartAfter of a listing from {@code millis} on: every key of the shard uploaded at or
   * after it sorts after this string, every earlier one before it.
   */
  public static String startAfter(int shard, long millis) {
    return prefix(shard) + String.format("%013d", millis);
  }

  /** The parts of one of our keys; empty for anything else in the bucket. */
  public static Optional<Parsed> parse(String key) {
    Matcher m = KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    UUID id = UUID.fromString(m.group(3));
    int shard = Integer.parseInt(m.group(1));
    return shard == shard(id)
        ? Optional.of(new Parsed(shard, Long.parseLong(m.group(2)), id))
        : Optional.empty();
  }
}
