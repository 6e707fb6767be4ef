package io.ambergarden.media;

/** Why a blob could not be stored or read; the HTTP layer maps each reason to its answer. */
public final class BlobTransferException extends RuntimeException {
  public enum Reason {
    /** The leading bytes are not the declared image type. */
    TYPE_MISMATCH,
    /** The object store cannot be reached, timed out or answered 5xx: come back later. */
    STORE_UNAVAILABLE,
    /** The object store refused the request (4xx): a configuration problem, not the client's. */
    STORE_REFUSED,
    /** The blob is not in the store. */
    MISSING,
    /** The client went away mid-body. */
    CLIENT_GONE,
    /** The upload did not finish within its deadline. */
    TOO_SLOW
  }

  private final Reason reason;

  public BlobTransferException(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
