package io.ambergarden.auth;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A token bucket: {@code ratePerSecond} tokens a second, holding at most one second's worth, so a
 * client may burst up to its rate and then gets exactly its rate. Kept as one number, the time at
 * which the bucket would be full again (the generic cell rate algorithm), so a grant is a single
 * compare-and-set and the bucket is safe to share between threads without a lock.
 */
public final class TokenBucket {
  private static final long NANOS = 1_000_000_000L;
  private static final VarHandle FULL_AT;

  static {
    try {
      FULL_AT = MethodHandles.lookup().findVarHandle(TokenBucket.class, "fullAt", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int ratePerSecond;

  /** Nanoseconds one token takes to come back. */
  private final long interval;

  /** When the bucket holds one second's worth again; at or before now it is full. */
  @SuppressWarnings("unused") // through FULL_AT
  private volatile long fullAt;

  public TokenBucket(int ratePerSecond, long nowNanos) {
    if (ratePerSecond < 1) {
      throw new IllegalArgumentException("rate must be at least 1/s");
    }
    this.ratePerSecond = ratePerSecond;
    this.interval = NANOS / ratePerSecond;
    this.fullAt = nowNanos;
  }

  /** Takes one token: 0 when granted, else the nanoseconds until one is available. */
  public long take(long nowNanos) {
    while (true) {
      long full = (long) FULL_AT.getVolatile(this);
      // a token taken now pushes "full again" one interval further, from now if already full
      long next = Math.max(full, nowNanos) + interval;
      long wait = next - nowNanos - interval * ratePerSecond;
      if (wait > 0) {
        return wait;
      }
      if (FULL_AT.compareAndSet(this, full, next)) {
        return 0;
      }
    }
  }

  public int ratePerSecond() {
    return ratePerSecond;
  }
}
