package io.ambergarden.bus;

import java.util.UUID;

/**
 * Soft-deletes an image: every read and list hides it at once, its blob is purged later. Replied to
 * with {@link Reply}; {@link FailureCode#NOT_FOUND} for an unknown or already deleted image.
 */
public final class ImageDelete {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.media.delete", Request.class, Reply.class);

  public record Request(UUID imageId) {}

  /** {@code purgeAt}: when the sweeper may remove the blob (epoch ms). */
  public record Reply(UUID imageId, long purgeAt) {}

  private ImageDelete() {}
}
