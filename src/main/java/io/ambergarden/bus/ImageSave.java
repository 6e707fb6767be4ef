package io.ambergarden.bus;

/**
 * Writes an uploaded image's metadata and index rows, after its blob is stored. Replied to with the
 * same {@link ImageMeta}; {@link FailureCode#UNAVAILABLE} when the write failed or its outcome is
 * unknown (the blob then stays until the orphan sweeper removes it, or the write lands).
 */
public final class ImageSave {
  public static final Endpoint<Request, ImageMeta> ENDPOINT =
      new Endpoint<>("amber.media.save", Request.class, ImageMeta.class);

  public record Request(ImageMeta image) {}

  private ImageSave() {}
}
