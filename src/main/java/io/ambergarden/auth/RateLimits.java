package io.ambergarden.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.LongSupplier;

/**
 * One token bucket per caller, shared by every event loop without a common lock: a bounded Caffeine
 * map finds the bucket, and each bucket locks only itself, so two callers never wait for each
 * other. At {@code maxBuckets} the map drops the bucket it judges least likely to be used again (by
 * frequency and recency), and that caller starts again with a full bucket: one second's worth of
 * extra burst at most, which only ever favours a caller that was idle enough to be dropped. The
 * limits are per instance: N instances behind a load balancer allow up to N times the rate.
 */
public final class RateLimits {
  private final LongSupplier nanoClock;
  private final Cache<String, TokenBucket> buckets;

  public RateLimits(int maxBuckets, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    // evictions run on the calling thread, in small amortised steps, not on a shared pool
    this.buckets = Caffeine.newBuilder().maximumSize(maxBuckets).executor(Runnable::run).build();
  }

  /** 0 if {@code bucket} may go ahead now, else the nanoseconds until it may. */
  public long acquire(String bucket, int ratePerSecond) {
    long now = nanoClock.getAsLong();
    TokenBucket b = buckets.get(bucket, k -> new TokenBucket(ratePerSecond, now));
    if (b.ratePerSecond() != ratePerSecond) {
      // a new rate for this caller starts a new bucket, as before it was ever seen
      b =
          buckets
              .asMap()
              .compute(
                  bucket,
                  (k, old) ->
                      old == null || old.ratePerSecond() != ratePerSecond
                          ? new TokenBucket(ratePerSecond, now)
                          : old);
    }
    return b.take(now);
  }

  /** Buckets held now, after pending evictions. */
  public int size() {
    buckets.cleanUp();
    return (int) buckets.estimatedSize();
  }
}
