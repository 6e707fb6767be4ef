package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class CausesTest {
  @Test
  void findsTheFirstOfTheTypeDownTheChain() {
    UnauthorizedException inner = new UnauthorizedException(null, "no MODIFY permission");
    Throwable wrapped = new CompletionException(new IllegalStateException(inner));
    assertThat(Causes.find(wrapped, QueryValidationException.class)).isSameAs(inner);
    assertThat(Causes.find(inner, UnauthorizedException.class)).isSameAs(inner);
  }

  @Test
  void aChainWithoutTheTypeOrNoErrorGivesNull() {
    assertThat(Causes.find(new DriverTimeoutException("timed out"), UnauthorizedException.class))
        .isNull();
    assertThat(Causes.find(null, UnauthorizedException.class)).isNull();
  }

  @Test
  void aCauseChainMadeIntoALoopEnds() {
    IllegalStateException a = new IllegalStateException("a");
    IllegalArgumentException b = new IllegalArgumentException("b", a);
    a.initCause(b);
    assertThat(Causes.find(a, UnauthorizedException.class)).isNull();
    assertThat(Causes.find(a, IllegalArgumentException.class)).isSameAs(b);
  }
}
