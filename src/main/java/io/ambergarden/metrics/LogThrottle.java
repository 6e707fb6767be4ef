package io.ambergarden.metrics;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Lets at most {@code permits} log lines through per window and counts the ones it holds back, so a
 * flood of identical warnings (every shed request during an outage) cannot make logging the
 * bottleneck, while the next line that goes through says how many were skipped. Thread-safe.
 */
public final class LogThrottle {
  /** Returned by {@link #tryAcquire()} when the line must not be logged. */
  public static final long SUPPRESS = -1;

  private final int permits;
  private final long windowNanos;
  private final LongSupplier nanoClock;
  private long windowStart;
  private int used;
  private long suppressed;

  public LogThrottle(int permits, Duration window, LongSupplier nanoClock) {
    if (permits < 1 || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("need at least one permit per positive window");
    }
    this.permits = permits;
    this.windowNanos = window.toNanos();
    this.nanoClock = nanoClock;
    this.windowStart = nanoClock.getAsLong();
  }

  public LogThrottle(int permits, Duration window) {
    this(permits, window, System::nanoTime);
  }

  /**
   * {@link #SUPPRESS} when this line must be dropped; otherwise how many lines were dropped since
   * the last one let through (0 usually), which the caller should mention.
   */
  public synchronized long tryAcquire() {
    long now = nanoClock.getAsLong();
    if (now - windowStart >= windowNanos) {
      windowStart = now;
      used = 0;
    }
    if (used >= permits) {
      suppressed++;
      return SUPPRESS;
    }
    used++;
    long skipped = suppressed;
    suppressed = 0;
    return skipped;
  }
}
