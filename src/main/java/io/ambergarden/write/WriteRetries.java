package io.ambergarden.write;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.NoNodeAvailableException;
import com.datastax.oss.driver.api.core.NodeUnavailableException;
import io.ambergarden.cassandra.Causes;
import io.ambergarden.cassandra.StatementRejections;
import java.util.List;

/**
 * When an idempotent write is tried again. Up to {@code maxAttempts} attempts with a doubling
 * backoff; after that, only a write that never reached a node keeps being retried, for up to {@code
 * unsentWindowMillis} since its first attempt: the driver had nodes it holds up but no connection
 * to any of them at that moment (a pool reconnecting after its connections dropped, as when a
 * starved host misses heartbeats while a node dies). Such an attempt cost Cassandra nothing, and
 * the condition clears within the driver's reconnection delay, so answering 503 for it would refuse
 * a write a healthy majority of replicas could take. Refusals of the statement itself are never
 * retried.
 */
final class WriteRetries {
  /** Longest wait between attempts of an unsent write: the driver's base reconnection delay. */
  static final long MAX_UNSENT_BACKOFF_MILLIS = 500;

  static final long GIVE_UP = -1;

  private final int maxAttempts;
  private final long initialBackoffMillis;
  private final long unsentWindowMillis;

  WriteRetries(int maxAttempts, long initialBackoffMillis, long unsentWindowMillis) {
    this.maxAttempts = maxAttempts;
    this.initialBackoffMillis = initialBackoffMillis;
    this.unsentWindowMillis = unsentWindowMillis;
  }

  /** Whether a retry after {@code failedAttempt} is one only an unsent write gets. */
  boolean beyondAttempts(int failedAttempt) {
    return failedAttempt >= maxAttempts;
  }

  /**
   * The delay before attempt {@code failedAttempt + 1}, or {@link #GIVE_UP}. {@code elapsedMillis}
   * is the time since the first attempt started.
   */
  long delayAfter(int failedAttempt, long elapsedMillis, Throwable error) {
    if (StatementRejections.rejected(error)) {
      return GIVE_UP;
    }
    long backoff = initialBackoffMillis << Math.min(failedAttempt - 1, 16);
    if (!beyondAttempts(failedAttempt)) {
      return backoff;
    }
    if (!neverSent(error)) {
      return GIVE_UP;
    }
    long delay = Math.min(backoff, MAX_UNSENT_BACKOFF_MILLIS);
    return elapsedMillis + delay <= unsentWindowMillis ? delay : GIVE_UP;
  }

  /**
   * The driver tried nodes it holds up and had no connection to any of them, so no node saw the
   * statement. An empty plan (every node down) is an outage, not this.
   */
  static boolean neverSent(Throwable error) {
    AllNodesFailedException all = Causes.find(error, AllNodesFailedException.class);
    if (all == null || all instanceof NoNodeAvailableException) {
      return false;
    }
    List<Throwable> errors = all.getAllErrors().values().stream().flatMap(List::stream).toList();
    return !errors.isEmpty()
        && errors.stream().allMatch(NodeUnavailableException.class::isInstance);
  }
}
