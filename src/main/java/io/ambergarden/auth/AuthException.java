package io.ambergarden.auth;

/** Why a request could not be authenticated; the web layer turns it into 401 or 503. */
public final class AuthException extends RuntimeException {
  public enum Reason {
    /** No credentials at all. */
    MISSING,
    /** Credentials that are not valid: unknown, malformed, tampered, revoked or expired. */
    INVALID,
    /** The credential store cannot be read now; try again. */
    UNAVAILABLE
  }

  private final Reason reason;

  public AuthException(Reason reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
