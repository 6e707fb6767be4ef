package io.ambergarden.bus;

import java.util.UUID;

/**
 * Creates a share link of an image that expires after {@code ttlSeconds} (a Cassandra TTL). Replied
 * to with {@link Reply} (the token is shown once; only its hash is stored); {@link
 * FailureCode#NOT_FOUND} for an unknown or deleted image.
 */
public final class ShareCreate {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.media.share-create", Request.class, Reply.class);

  public record Request(UUID imageId, int ttlSeconds) {}

  public record Reply(String shareId, long expiresAt) {}

  private ShareCreate() {}
}
