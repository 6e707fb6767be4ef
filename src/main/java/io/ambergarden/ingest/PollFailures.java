package io.ambergarden.ingest;

/**
 * Backoff and log rate for a poll that keeps failing (authentication, ACLs, a deleted topic): the
 * delay before the next poll doubles from {@code firstDelayMillis} up to {@code maxDelayMillis},
 * which stays below max.poll.interval.ms so the member keeps its place in the group, and the
 * failure is logged when it starts and then at most once per {@code logIntervalMillis}, with the
 * count of failures in between.
 */
final class PollFailures {
  /** What to do after a failed poll. {@code suppressed}: failures not logged since the last log. */
  record Next(long delayMillis, boolean log, int suppressed) {}

  private final long firstDelayMillis;
  private final long maxDelayMillis;
  private final long logIntervalMillis;
  private int consecutive;
  private int suppressed;
  private long lastLog;

  PollFailures(long firstDelayMillis, long maxDelayMillis, long logIntervalMillis) {
    this.firstDelayMillis = firstDelayMillis;
    this.maxDelayMillis = Math.max(firstDelayMillis, maxDelayMillis);
    this.logIntervalMillis = logIntervalMillis;
  }

  Next failed(long nowMillis) {
    consecutive++;
    long delay = Math.min(maxDelayMillis, firstDelayMillis << Math.min(consecutive - 1, 20));
    if (consecutive == 1 || nowMillis - lastLog >= logIntervalMillis) {
      Next next = new Next(delay, true, suppressed);
      lastLog = nowMillis;
      suppressed = 0;
      return next;
    }
    suppressed++;
    return new Next(delay, false, suppressed);
  }

  /** A poll succeeded; returns how many failures in a row it ends (0: none). */
  int succeeded() {
    int ended = consecutive;
    consecutive = 0;
    suppressed = 0;
    return ended;
  }
}
