package io.ambergarden.media;

import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.bus.ImageMeta;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Turns the image tables' rows into {@link ImageMeta}, in the column orders their SELECTs use. */
final class ImageRows {
  static final String DELETED = "deleted";

  /** Columns of a device list read. */
  static final String DEVICE_COLUMNS =
      "created, image_id, content_type, bytes, sha256, tags, status";

  /** Columns of a tag list read. */
  static final String TAG_COLUMNS =
      "created, image_id, device_id, content_type, bytes, sha256, tags, status";

  private ImageRows() {}

  /** A row of {@link ImageStatements#IMAGE_COLUMNS}. */
  static ImageMeta ofImage(UUID imageId, Row r) {
    return new ImageMeta(
        imageId,
        r.getString(0),
        r.getString(1),
        r.getLong(2),
        r.getString(3),
        tags(r, 4),
        millis(r.getInstant(5)),
        r.getString(6),
        hidden(r.getString(7)));
  }

  /** A row of {@link #DEVICE_COLUMNS}. */
  static ImageMeta ofDevice(String deviceId, Row r) {
    return new ImageMeta(
        r.getUuid(1),
        deviceId,
        r.getString(2),
        r.getLong(3),
        r.getString(4),
        tags(r, 5),
        millis(r.getInstant(0)),
        null,
        hidden(r.getString(6)));
  }

  /** A row of {@link #TAG_COLUMNS}. */
  static ImageMeta ofTag(Row r) {
    return new ImageMeta(
        r.getUuid(1),
        r.getString(2),
        r.getString(3),
        r.getLong(4),
        r.getString(5),
        tags(r, 6),
        millis(r.getInstant(0)),
        null,
        hidden(r.getString(7)));
  }

  /**
   * Deleted, or a row without status: only an update of a row whose insert never landed leaves one,
   * and such a row has no metadata to show.
   */
  private static boolean hidden(String status) {
    return status == null || DELETED.equals(status);
  }

  private static List<String> tags(Row r, int i) {
    List<String> tags = r.getList(i, String.class);
    return tags == null ? List.of() : tags;
  }

  private static long millis(Instant i) {
    return i == null ? 0 : i.toEpochMilli();
  }
}
