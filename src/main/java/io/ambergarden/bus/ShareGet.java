package io.ambergarden.bus;

/**
 * The image a share link points at, while the share lives. Replied to with the {@link ImageMeta};
 * {@link FailureCode#NOT_FOUND} once the share expired, or when its image was deleted.
 */
public final class ShareGet {
  public static final Endpoint<Request, ImageMeta> ENDPOINT =
      new Endpoint<>("amber.media.share-get", Request.class, ImageMeta.class);

  public record Request(String shareId) {}

  private ShareGet() {}
}
