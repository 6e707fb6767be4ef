package io.ambergarden.ingest;

import java.util.random.RandomGenerator;

/**
 * What to do after a failed write of some records, as Kafka Connect's {@code errors.retry.timeout}
 * and {@code errors.tolerance=all} do it, plus one rule of ours: a record is given up on only while
 * the store accepts other writes, so an outage never turns good records into dead letters.
 *
 * <ul>
 *   <li>A permanent error on several records: write them one by one ({@link Action#SPLIT}), so the
 *       records the store accepts still land.
 *   <li>A permanent error on one record: dead-letter it ({@link Action#REJECT}).
 *   <li>A transient error: retry with doubling backoff for at most {@code retryTimeoutMillis} since
 *       the first failure. After that a batch is split (that gives nothing up, and lets the good
 *       records land, which is the very success that tells a bad record from an outage); one record
 *       is rejected only if some other write succeeded since its first failure, otherwise the store
 *       is down and it waits.
 *   <li>Busy (full queue, open circuit): retry, never give up.
 * </ul>
 *
 * Every backoff is jittered (half fixed, half random), so the retries of many records, and of many
 * pods after one outage, do not arrive at the store in step.
 */
public final class RetryPolicy {
  public enum Action {
    RETRY,
    SPLIT,
    REJECT
  }

  /** The decision; {@code delayMillis} applies to {@link Action#RETRY} only. */
  public record Decision(Action action, long delayMillis) {}

  private static final long FIRST_BACKOFF_MILLIS = 100;

  private final long retryTimeoutMillis;
  private final long maxBackoffMillis;
  private final RandomGenerator random;

  public RetryPolicy(long retryTimeoutMillis, long maxBackoffMillis) {
    this(retryTimeoutMillis, maxBackoffMillis, RandomGenerator.getDefault());
  }

  RetryPolicy(long retryTimeoutMillis, long maxBackoffMillis, RandomGenerator random) {
    if (retryTimeoutMillis < 0 || maxBackoffMillis < 1) {
      throw new IllegalArgumentException("bad retry settings");
    }
    this.retryTimeoutMillis = retryTimeoutMillis;
    this.maxBackoffMillis = maxBackoffMillis;
    this.random = random;
  }

  /**
   * @param kind how the last failure was classified
   * @param records how many records the failed write held
   * @param attempt 1 for the first failure of this write, then 2, 3...
   * @param firstFailureMillis when these records first failed (kept across a split)
   * @param lastSuccessMillis when any write last succeeded (Long.MIN_VALUE, Monotonic.NEVER: never)
   * @param nowMillis the clock (a monotonic one: a wall-clock jump would age every failure)
   */
  public Decision decide(
      ErrorClassifier.Kind kind,
      int records,
      int attempt,
      long firstFailureMillis,
      long lastSuccessMillis,
      long nowMillis) {
    boolean timedOut = nowMillis - firstFailureMillis >= retryTimeoutMillis;
    boolean giveUp =
        switch (kind) {
          case PERMANENT -> true;
          case BUSY -> false;
          case TRANSIENT -> timedOut && (records > 1 || lastSuccessMillis > firstFailureMillis);
        };
    if (!giveUp) {
      return new Decision(Action.RETRY, backoff(attempt));
    }
    return new Decision(records > 1 ? Action.SPLIT : Action.REJECT, 0);
  }

  /**
   * Doubling from 100 ms, capped at the maximum backoff; the delay is drawn between half of that
   * and all of it.
   */
  public long backoff(int attempt) {
    long ceiling =
        Math.min(maxBackoffMillis, FIRST_BACKOFF_MILLIS << Math.min(Math.max(attempt, 1) - 1, 20));
    long fixed = ceiling - ceiling / 2;
    return fixed + random.nextLong(ceiling / 2 + 1);
  }

  /** Whether a transient failure that began at {@code firstFailureMillis} may still be retried. */
  public boolean withinTimeout(long firstFailureMillis, long nowMillis) {
    return nowMillis - firstFailureMillis < retryTimeoutMillis;
  }
}
