package io.ambergarden.localrt;

/** A local server could not be resolved, started, probed or stopped. */
public class LocalRuntimeException extends RuntimeException {
  public LocalRuntimeException(String message) {
    super(message);
  }

  public LocalRuntimeException(String message, Throwable cause) {
    super(message, cause);
  }
}
