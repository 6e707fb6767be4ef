package io.ambergarden.bus;

/**
 * Writes an uploaded image's metadata and index rows, after its blob is stored. Replied to with the
 * same {@link ImageMeta}; {@link FailureCode#UNAVAILABLE} when the write failed or its outcome is
 * unknown (the blob then stays until the orphan sweeper removes it, or the write lands).
 */
public final class ImageSave {
  public static final String ADDRESS = "amber.media.save";

  public record Request(ImageMeta image) {}

  private ImageSave() {}
}
