package io.ambergarden.auth;

/** Why a request could not be authenticated; the web layer turns it into 401, 429 or 503. */
public final class AuthException extends RuntimeException {
  public enum Reason {
    /** No credentials at all. */
    MISSING,
    /** Credentials that are not valid: unknown, malformed, tampered, revoked or expired. */
    INVALID,
    /** The credential store cannot be read now; try again. */
    UNAVAILABLE,
    /** The client's address failed too often; not even looked up. */
    THROTTLED
  }

  private final Reason reason;
  private final int retryAfterSeconds;

  public AuthException(Reason reason, String detail) {
    this(reason, detail, 1);
  }

  public AuthException(Reason reason, String detail, int retryAfterSeconds) {
    super(detail, null, false, false);
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public Reason reason() {
    return reason;
  }

  /** When to try again, for UNAVAILABLE and THROTTLED. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
