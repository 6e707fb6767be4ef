package io.ambergarden.bus;

import java.util.UUID;

/**
 * One image's metadata. Replied to with the {@link ImageMeta}; {@link FailureCode#NOT_FOUND} for an
 * unknown or deleted image.
 */
public final class ImageGet {
  public static final Endpoint<Request, ImageMeta> ENDPOINT =
      new Endpoint<>("amber.media.get", Request.class, ImageMeta.class);

  public record Request(UUID imageId) {}

  private ImageGet() {}
}
