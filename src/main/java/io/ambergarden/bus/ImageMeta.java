package io.ambergarden.bus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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

  /** The API shape: imageId, deviceId, contentType, bytes, sha256, tags, createdAt (epoch ms). */
  public JsonObject toApiJson() {
    return new JsonObject()
        .put("imageId", imageId.toString())
        .put("deviceId", deviceId)
        .put("contentType", contentType)
        .put("bytes", bytes)
        .put("sha256", sha256)
        .put("tags", new JsonArray(List.copyOf(tags)))
        .put("createdAt", createdAt);
  }
}
