package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.servererrors.InvalidConfigurationInQueryException;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.ingest.ErrorClassifier.Kind;
import io.vertx.circuitbreaker.OpenCircuitException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class ErrorClassifierTest {

  private static ReplyException writerFailed(FailureCode code) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code.code(), "store write failed");
  }

  @Test
  void aStatementTheStoreRejectsIsPermanent() {
    assertThat(ErrorClassifier.classify(new InvalidQueryException(null, "Key length too long")))
        .isEqualTo(Kind.PERMANENT);
    assertThat(ErrorClassifier.classify(writerFailed(FailureCode.INTERNAL)))
        .isEqualTo(Kind.PERMANENT);
    assertThat(ErrorClassifier.classify(writerFailed(FailureCode.BAD_REQUEST)))
        .isEqualTo(Kind.PERMANENT);
  }

  @Test
  void aRefusalThatHitsEveryRecordAlikeIsTransientNeverARejection() {
    // a coordinator that cannot read system_auth (its clock skewed, say) refuses every statement
    assertThat(
            ErrorClassifier.classify(
                new UnauthorizedException(
                    null,
                    "Unable to perform authorization of permissions: Operation timed out - received"
                        + " only 1 responses.")))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(
            ErrorClassifier.classify(
                new CompletionException(
                    new InvalidConfigurationInQueryException(null, "unconfigured table x"))))
        .isEqualTo(Kind.TRANSIENT);
  }

  @Test
  void kafkaErrorsThatCannotHealArePermanent() {
    assertThat(ErrorClassifier.classify(new RecordTooLargeException("too large")))
        .isEqualTo(Kind.PERMANENT);
    assertThat(ErrorClassifier.classify(new TopicAuthorizationException("denied")))
        .isEqualTo(Kind.PERMANENT);
    assertThat(ErrorClassifier.classify(new SaslAuthenticationException("bad password")))
        .isEqualTo(Kind.PERMANENT);
    assertThat(ErrorClassifier.classify(new SerializationException("bad bytes")))
        .isEqualTo(Kind.PERMANENT);
  }

  @Test
  void aPermanentCauseIsFoundUnderWrappers() {
    Throwable wrapped =
        new CompletionException(new IllegalStateException(new RecordTooLargeException("x")));
    assertThat(ErrorClassifier.classify(wrapped)).isEqualTo(Kind.PERMANENT);
  }

  @Test
  void timeoutsUnavailabilityAndLostConnectionsAreTransient() {
    assertThat(ErrorClassifier.classify(writerFailed(FailureCode.UNAVAILABLE)))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(
            ErrorClassifier.classify(new ReplyException(ReplyFailure.TIMEOUT, "no reply in 15s")))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(ErrorClassifier.classify(new ReplyException(ReplyFailure.NO_HANDLERS, "none")))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(ErrorClassifier.classify(new TimeoutException("delivery timeout")))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(ErrorClassifier.classify(new NotLeaderOrFollowerException("moved")))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(ErrorClassifier.classify(new ConnectException("refused"))).isEqualTo(Kind.TRANSIENT);
    assertThat(ErrorClassifier.classify(new IOException("reset"))).isEqualTo(Kind.TRANSIENT);
    assertThat(
            ErrorClassifier.classify(
                new UnavailableException(
                    null, com.datastax.oss.driver.api.core.DefaultConsistencyLevel.QUORUM, 2, 1)))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(
            ErrorClassifier.classify(
                new WriteTimeoutException(
                    null,
                    com.datastax.oss.driver.api.core.DefaultConsistencyLevel.QUORUM,
                    1,
                    2,
                    com.datastax.oss.driver.api.core.servererrors.DefaultWriteType.SIMPLE)))
        .isEqualTo(Kind.TRANSIENT);
  }

  @Test
  void aFullQueueOrAnOpenCircuitMeansWait() {
    assertThat(ErrorClassifier.classify(writerFailed(FailureCode.OVERLOADED))).isEqualTo(Kind.BUSY);
    assertThat(ErrorClassifier.classify(OpenCircuitException.INSTANCE)).isEqualTo(Kind.BUSY);
  }

  @Test
  void anUnknownErrorOrUnknownReplyCodeIsTransient() {
    assertThat(ErrorClassifier.classify(new RuntimeException("?"))).isEqualTo(Kind.TRANSIENT);
    assertThat(
            ErrorClassifier.classify(
                new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 999, "odd code")))
        .isEqualTo(Kind.TRANSIENT);
  }
}
