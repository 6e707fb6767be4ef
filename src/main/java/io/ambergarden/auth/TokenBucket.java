package io.ambergarden.auth;

/**
 * A token bucket: {@code ratePerSecond} tokens a second, holding at most one second's worth, so a
 * client may burst up to its rate and then gets exactly its rate. Safe to share: {@link #take}
 * locks only this bucket.
 */
public final class TokenBucket {
  private static final long NANOS = 1_000_000_000L;

  private final int ratePerSecond;
  private double tokens;
  private long last;

  public TokenBucket(int ratePerSecond, long nowNanos) {
    if (ratePerSecond < 1) {
      throw new IllegalArgumentException("rate must be at least 1/s");
    }
    this.ratePerSecond = ratePerSecond;
    this.tokens = ratePerSecond;
    this.last = nowNanos;
  }

  /** Takes one token: 0 when granted, else the nanoseconds until one is available. */
  public synchronized long take(long nowNanos) {
    if (nowNanos > last) {
      tokens = Math.min(ratePerSecond, tokens + (nowNanos - last) * (double) ratePerSecond / NANOS);
      last = nowNanos;
    }
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return (long) Math.ceil((1 - tokens) * NANOS / ratePerSecond);
  }

  public int ratePerSecond() {
    return ratePerSecond;
  }
}
