package io.ambergarden.ingest;

import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.cassandra.StatementRejections;
import io.vertx.circuitbreaker.OpenCircuitException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Sorts a failed write or dead letter into what retrying can and cannot fix, as Kafka Connect's
 * error handling does. Unknown errors are transient: retrying a write is always safe (every write
 * is idempotent), while giving up on a healthy record is not.
 */
public final class ErrorClassifier {

  public enum Kind {
    /** Retrying the same request cannot succeed (rejected statement, record too large, ACLs). */
    PERMANENT,
    /** May heal by itself (timeout, unavailable replica, lost connection, broker restart). */
    TRANSIENT,
    /**
     * A full queue or an open circuit: the service itself asks to wait. Never a reason to give up
     * on a record, however long it lasts.
     */
    BUSY
  }

  private ErrorClassifier() {}

  public static Kind classify(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      Kind k = own(t);
      if (k != null) {
        return k;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Kind.TRANSIENT;
  }

  private static Kind own(Throwable t) {
    if (t instanceof ReplyException r) {
      return reply(r);
    }
    if (t instanceof OpenCircuitException) {
      return Kind.BUSY;
    }
    // Cassandra: invalid value, mutation too large; a missing grant or a failed permission check
    // hits every record alike, so it is transient (StatementRejections)
    if (t instanceof QueryValidationException) {
      return StatementRejections.rejected(t) ? Kind.PERMANENT : Kind.TRANSIENT;
    }
    if (t instanceof RecordTooLargeException
        || t instanceof RecordBatchTooLargeException
        || t instanceof SerializationException
        || t instanceof AuthorizationException
        || t instanceof AuthenticationException
        || t instanceof InvalidTopicException
        || t instanceof InvalidConfigurationException
        || t instanceof UnsupportedVersionException) {
      return Kind.PERMANENT;
    }
    return null;
  }

  /** A writer's answer: its failure code says whether the store rejected the request. */
  private static Kind reply(ReplyException r) {
    if (r.failureType() != ReplyFailure.RECIPIENT_FAILURE) {
      // timeout (outcome unknown) or no writer registered (starting/stopping): try again
      return Kind.TRANSIENT;
    }
    return FailureCode.of(r)
        .map(
            c ->
                switch (c) {
                  case BAD_REQUEST, INTERNAL -> Kind.PERMANENT;
                  case OVERLOADED -> Kind.BUSY;
                  case NOT_FOUND, UNAVAILABLE -> Kind.TRANSIENT;
                })
        .orElse(Kind.TRANSIENT);
  }
}
