package io.ambergarden.auth;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One token bucket per caller, in a bounded map: the least recently used bucket is dropped first
 * (its caller then starts again with a full bucket, which only ever favours an idle caller). The
 * limits are per instance: N instances behind a load balancer allow up to N times the rate.
 */
public final class RateLimits {
  private final LongSupplier nanoClock;
  private final Map<String, TokenBucket> buckets;

  public RateLimits(int maxBuckets, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.buckets =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, TokenBucket> eldest) {
            return size() > maxBuckets;
          }
        };
  }

  /** 0 if {@code bucket} may go ahead now, else the nanoseconds until it may. */
  public synchronized long acquire(String bucket, int ratePerSecond) {
    long now = nanoClock.getAsLong();
    TokenBucket b = buckets.get(bucket);
    if (b == null || b.ratePerSecond() != ratePerSecond) {
      b = new TokenBucket(ratePerSecond, now);
      buckets.put(bucket, b);
    }
    return b.take(now);
  }

  public synchronized int size() {
    return buckets.size();
  }
}
