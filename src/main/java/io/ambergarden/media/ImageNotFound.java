package io.ambergarden.media;

/** An unknown or deleted image, or an expired share: a 404, not a failure of the store. */
final class ImageNotFound extends RuntimeException {
  ImageNotFound(String message) {
    super(message, null, false, false);
  }
}
