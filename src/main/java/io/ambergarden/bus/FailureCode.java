package io.ambergarden.bus;

import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.util.Optional;

/**
 * Why an event-bus request failed. The reply carries {@link #code()} as its failure code (HTTP-like
 * numbers, so logs read naturally); the HTTP layer maps each value to its answer in one place
 * ({@code web.Problems}).
 */
public enum FailureCode {
  /** The request itself is wrong; retrying it cannot help. */
  BAD_REQUEST(400),
  /** The thing asked for does not exist. */
  NOT_FOUND(404),
  /** A bounded queue is full: come back later (429). */
  OVERLOADED(429),
  /** A dependency is failing or unreachable: come back later (503). */
  UNAVAILABLE(503),
  /** A bug or a rejected statement: retrying the same request will not help. */
  INTERNAL(500);

  private final int code;

  FailureCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Fails {@code msg} with this code. */
  public void fail(Message<?> msg, String detail) {
    msg.fail(code, detail);
  }

  /**
   * A failure carrying this code, for a handler that answers through a future: the code reaches the
   * requester as if the handler had called {@link #fail}.
   */
  public ReplyException exception(String detail) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, detail);
  }

  /** The code a failed reply carries, if it is one of ours. */
  public static Optional<FailureCode> of(ReplyException e) {
    for (FailureCode c : values()) {
      if (c.code == e.failureCode()) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}
