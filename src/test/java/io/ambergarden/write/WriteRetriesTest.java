package io.ambergarden.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.NoNodeAvailableException;
import com.datastax.oss.driver.api.core.NodeUnavailableException;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class WriteRetriesTest {
  static final Node NODE_1 = node("node-1");
  static final Node NODE_2 = node("node-2");

  /** A node that only has a name: the exceptions keep it, and nothing here asks it more. */
  static Node node(String name) {
    return (Node)
        java.lang.reflect.Proxy.newProxyInstance(
            Node.class.getClassLoader(),
            new Class<?>[] {Node.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "toString" -> name;
                  case "hashCode" -> name.hashCode();
                  case "equals" -> proxy == args[0];
                  default -> null;
                });
  }

  // three attempts, 50 ms doubling, unsent writes retried for up to 3 s
  final WriteRetries retries = new WriteRetries(3, 50, 3000);

  static AllNodesFailedException noConnection(Node... nodes) {
    return AllNodesFailedException.fromErrors(
        java.util.Arrays.stream(nodes)
            .map(n -> Map.entry(n, (Throwable) new NodeUnavailableException(n)))
            .toList());
  }

  @Test
  void anyFailureIsRetriedWithADoublingBackoffUpToTheAttempts() {
    Throwable timeout = new DriverTimeoutException("timed out");
    assertThat(retries.delayAfter(1, 0, timeout)).isEqualTo(50);
    assertThat(retries.delayAfter(2, 60, timeout)).isEqualTo(100);
    assertThat(retries.delayAfter(3, 200, timeout)).isEqualTo(WriteRetries.GIVE_UP);
  }

  @Test
  void aWriteNoNodeHadAConnectionForIsRetriedPastTheAttemptsUntilTheWindowEnds() {
    Throwable unsent = noConnection(NODE_1, NODE_2);
    assertThat(retries.delayAfter(3, 200, unsent)).isEqualTo(200);
    // the backoff stops growing at the driver's reconnection delay
    assertThat(retries.delayAfter(6, 1400, unsent))
        .isEqualTo(WriteRetries.MAX_UNSENT_BACKOFF_MILLIS);
    assertThat(retries.delayAfter(7, 2500, unsent)).isEqualTo(500);
    assertThat(retries.delayAfter(8, 2501, unsent)).isEqualTo(WriteRetries.GIVE_UP);
    // as the Vert.x client may hand it over, wrapped
    assertThat(retries.delayAfter(3, 200, new CompletionException(unsent))).isEqualTo(200);
  }

  @Test
  void aWriteSomeNodeSawIsNotRetriedPastTheAttempts() {
    Throwable sentToOne =
        AllNodesFailedException.fromErrors(
            List.of(
                Map.entry(NODE_1, (Throwable) new NodeUnavailableException(NODE_1)),
                Map.entry(
                    NODE_2,
                    (Throwable)
                        new UnavailableException(NODE_2, ConsistencyLevel.LOCAL_QUORUM, 2, 1))));
    assertThat(WriteRetries.neverSent(sentToOne)).isFalse();
    assertThat(retries.delayAfter(3, 200, sentToOne)).isEqualTo(WriteRetries.GIVE_UP);
  }

  @Test
  void everyNodeDownIsAnOutageNotARetriedBlip() {
    Throwable none = new NoNodeAvailableException();
    assertThat(WriteRetries.neverSent(none)).isFalse();
    assertThat(retries.delayAfter(1, 0, none)).isEqualTo(50);
    assertThat(retries.delayAfter(3, 200, none)).isEqualTo(WriteRetries.GIVE_UP);
  }

  @Test
  void aRefusedStatementIsNeverRetried() {
    Throwable refused = new InvalidQueryException(NODE_1, "Mutation too large");
    assertThat(retries.delayAfter(1, 0, refused)).isEqualTo(WriteRetries.GIVE_UP);
  }
}
