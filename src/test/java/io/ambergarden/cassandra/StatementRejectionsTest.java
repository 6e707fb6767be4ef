package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.InvalidConfigurationInQueryException;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import com.datastax.oss.driver.api.core.servererrors.SyntaxError;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class StatementRejectionsTest {
  @Test
  void aStatementRefusedForWhatItHoldsIsRejected() {
    assertThat(
            StatementRejections.rejected(
                new InvalidQueryException(
                    null, "Mutation of 819200 bytes exceeds allowed maximum of 786432 bytes")))
        .isTrue();
    assertThat(StatementRejections.rejected(new SyntaxError(null, "line 1:0 no viable input")))
        .isTrue();
  }

  @Test
  void theCauseIsFoundUnderWrappers() {
    assertThat(
            StatementRejections.rejected(
                new CompletionException(
                    new IllegalStateException(new InvalidQueryException(null, "too large")))))
        .isTrue();
  }

  @Test
  void refusalsThatSayNothingAboutTheDataAreNotRejections() {
    assertThat(
            StatementRejections.rejected(
                new UnauthorizedException(
                    null, "Unable to perform authorization of permissions: Operation timed out")))
        .isFalse();
    assertThat(
            StatementRejections.rejected(
                new UnauthorizedException(null, "User amber has no MODIFY permission")))
        .isFalse();
    assertThat(
            StatementRejections.rejected(
                new InvalidConfigurationInQueryException(null, "unconfigured table events")))
        .isFalse();
  }

  @Test
  void outagesAndOtherErrorsAreNotRejections() {
    assertThat(StatementRejections.rejected(new DriverTimeoutException("timed out"))).isFalse();
    assertThat(StatementRejections.rejected(new IllegalStateException("bug"))).isFalse();
    assertThat(StatementRejections.rejected(null)).isFalse();
  }
}
