package io.ambergarden.bus;

import java.util.List;
import java.util.UUID;

/**
 * A device image's metadata as stored in Cassandra. {@code objectKey} names its blob in the bucket
 * and is never shown to clients; {@code deleted} is the soft-delete flag (lists and reads hide such
 * images).
 */
public record ImageMeta(
    UUID imageId,
    String deviceId,
    String contentType,
    long bytes,
    String sha256,
    List<String> tags,
    long createdAt,
    String objectKey,
    boolean deleted) {
  public ImageMeta {
    tags = List.copyOf(tags);
  }
}
