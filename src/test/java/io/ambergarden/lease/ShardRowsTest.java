package io.ambergarden.lease;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.servererrors.CASWriteUnknownException;
import io.vertx.core.Future;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ShardRowsTest {
  private final Deque<Future<?>> answers = new ArrayDeque<>();
  private int creates;
  private final ShardRows rows =
      new ShardRows(
          () -> {
            creates++;
            return answers.isEmpty() ? Future.succeededFuture() : answers.poll();
          });

  private static Future<?> contended() {
    // what a create racing another instance's create got in a chaos run
    return Future.failedFuture(new CASWriteUnknownException(null, ConsistencyLevel.SERIAL, 0, 2));
  }

  @Test
  void aStartSucceedsWhenAContendedCreateEndsWithAnUnknownOutcome() {
    answers.add(contended());

    Future<Void> start = rows.ensureAtStart(LoggerFactory.getLogger(getClass()), "test");

    assertThat(start.succeeded()).isTrue();
    assertThat(rows.created()).isFalse();
  }

  @Test
  void theNextScanCreatesTheRowsAgainUntilOnceAllWereCreated() {
    answers.add(contended());
    answers.add(contended());
    rows.ensureAtStart(LoggerFactory.getLogger(getClass()), "test");

    assertThat(rows.ensure().failed()).as("second try, contended again").isTrue();
    assertThat(rows.ensure().succeeded()).as("third try").isTrue();
    assertThat(rows.ensure().succeeded()).isTrue();
    assertThat(creates).as("no create after the one that succeeded").isEqualTo(3);
    assertThat(rows.created()).isTrue();
  }

  @Test
  void aScanFailsWhileTheRowsCannotBeCreated() {
    answers.add(Future.failedFuture(new IllegalStateException("no quorum")));

    assertThat(rows.ensure().cause()).hasMessage("no quorum");
    assertThat(rows.created()).isFalse();
  }
}
