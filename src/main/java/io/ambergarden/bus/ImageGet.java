package io.ambergarden.bus;

import java.util.UUID;

/**
 * One image's metadata. Replied to with the {@link ImageMeta}; {@link FailureCode#NOT_FOUND} for an
 * unknown or deleted image.
 */
public final class ImageGet {
  public static final String ADDRESS = "amber.media.get";

  public record Request(UUID imageId) {}

  private ImageGet() {}
}
