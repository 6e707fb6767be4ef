package io.ambergarden.bench;

/**
 * An open-loop schedule: request {@code i} is due at {@code start + i / rate}, whether or not the
 * ones before it were answered, and its latency runs from that due time, not from when it was
 * actually sent. A sender held up (a stall, a full connection pool) so no longer hides the wait of
 * the requests queued behind it: the correction for coordinated omission.
 */
final class OpenLoop {
  private final long startNanos;
  private final double nanosPerRequest;

  OpenLoop(double ratePerSecond, long startNanos) {
    if (!(ratePerSecond > 0)) {
      throw new IllegalArgumentException("rate must be positive: " + ratePerSecond);
    }
    this.startNanos = startNanos;
    this.nanosPerRequest = 1e9 / ratePerSecond;
  }

  /** When request {@code i} (from 0) is due, in {@link System#nanoTime()} terms. */
  long dueNanos(long i) {
    return startNanos + Math.round(i * nanosPerRequest);
  }

  /** How long to wait at {@code nowNanos} before sending request {@code i}; 0 when it is late. */
  long waitNanos(long i, long nowNanos) {
    return Math.max(0, dueNanos(i) - nowNanos);
  }

  /** The latency of request {@code i} answered at {@code answeredNanos}, from its due time. */
  long latencyNanos(long i, long answeredNanos) {
    return answeredNanos - dueNanos(i);
  }

  /** Requests due by {@code nowNanos} (those with a due time at or before it). */
  long dueBy(long nowNanos) {
    if (nowNanos < startNanos) {
      return 0;
    }
    return (long) Math.floor((nowNanos - startNanos) / nanosPerRequest) + 1;
  }
}
