package io.ambergarden.web.images;

import io.ambergarden.bus.ImageMeta;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** An image's API shape. The object key and the soft-delete flag are never shown. */
final class ImageJson {
  private ImageJson() {}

  /** imageId, deviceId, contentType, bytes, sha256, tags, createdAt (epoch ms). */
  static JsonObject of(ImageMeta m) {
    return new JsonObject()
        .put("imageId", m.imageId().toString())
        .put("deviceId", m.deviceId())
        .put("contentType", m.contentType())
        .put("bytes", m.bytes())
        .put("sha256", m.sha256())
        .put("tags", new JsonArray(List.copyOf(m.tags())))
        .put("createdAt", m.createdAt());
  }
}
