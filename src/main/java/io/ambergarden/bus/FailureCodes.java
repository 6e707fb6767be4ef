package io.ambergarden.bus;

/** Failure codes carried by event-bus replies; they are the HTTP statuses the caller should answer with. */
public final class FailureCodes {
  public static final int BAD_REQUEST = 400;
  public static final int NOT_FOUND = 404;
  public static final int OVERLOADED = 429;
  public static final int INTERNAL = 500;
  public static final int UNAVAILABLE = 503;

  private FailureCodes() {
  }
}
